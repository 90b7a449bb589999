// The row-group kernel's staging (device code, internal): a stage's mapped rows of B in shared
// memory in 16-byte chunks, eight entries at a time chunk by chunk, so that a thread reads an
// entry's R values as R / (16 / sizeof(V)) 16-byte loads at fixed distances from the entry's
// first chunk (immediate offsets: one address per entry). The tiled kernel's layout
// (stage_rows.hpp, column kk at kk*stride) needs one load and one address sum per column: the
// row-group kernel issues more instructions than its shared memory serves, so these count.
#pragma once

#include "core/cuda/kernels/stage_rows.hpp"
#include "core/cuda/kernels/tile_store.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/types.hpp"

namespace tessel::cuda::detail {

/// Entries a stage of `entries` takes room for in EntryLayout: whole octets.
__host__ __device__ constexpr size_type octet_entries(size_type entries) { return (entries + 7) / 8 * 8; }

// Entries go in octets: octet o = n / 8 holds chunk c of its eight entries side by side, 128
// bytes, then chunk c + 1. Entry n's chunk c lies at ((o*chunks + c)*8 + n mod 8)*per, that is
// first(n) + c*chunk_stride, on bank group n mod 8 (16 bytes each, eight to 128 bytes): a
// quarter warp's 16-byte reads of chunk c (eight lanes, one wavefront when they meet eight
// distinct bank groups) of entries with distinct n mod 8 take one wavefront. The host's bank
// order for row groups gives each quarter warp distinct n mod 8 (core/formats/grouped_ell.hpp,
// grouped_bank_groups). A stage of n entries spans octet_entries(n)*R values.
template <int R, typename V>
struct EntryLayout {
    static constexpr int per = 16 / static_cast<int>(sizeof(V));  // values per chunk
    static constexpr int chunks = R / per;                         // chunks per entry
    static constexpr int octet = 8;                                // entries side by side
    static constexpr int chunk_stride = octet * per;               // values from chunk c to c + 1
    static_assert(R % per == 0 && chunks >= 1, "an entry is whole 16-byte chunks");

    /// Entry n's first chunk, (n / 8)*chunks*8 + n mod 8, in two operations (n >= 0).
    __host__ __device__ static constexpr int first_chunk(int n) { return n + (n & ~7) * (chunks - 1); }
    __host__ __device__ static constexpr int first(int n) { return first_chunk(n) * per; }
    __host__ __device__ static constexpr int offset(int n, int c) { return first(n) + c * chunk_stride; }
    /// The entry and chunk at chunk position p (offset p*per), the inverse of offset.
    __host__ __device__ static constexpr int entry_at(int p) { return p / (octet * chunks) * octet + p % octet; }
    __host__ __device__ static constexpr int chunk_at(int p) { return p / octet % chunks; }
    /// Values the layout spans for `entries` entries.
    __host__ __device__ static constexpr size_type span(size_type entries) { return octet_entries(entries) * R; }
};

// Where staging turn t goes when the buffer is filled in EntryLayout's own order, `per` values a
// turn (a chunk, or one value): the entry, clamped to the stage's last (an octet's places past it
// take copies of it), and the piece of its row (a chunk, or a column).
template <int R, typename V, int PerTurn>
__device__ __forceinline__ StageTurn entry_turn(int t, int staged) {
    using Layout = EntryLayout<R, V>;
    const int p = t / (Layout::per / PerTurn);  // the chunk position of turn t
    const int entry = Layout::entry_at(p);
    const int chunk = Layout::chunk_at(p);
    const int piece = PerTurn == Layout::per ? chunk : chunk * Layout::per + t % Layout::per;
    return StageTurn{entry < staged ? entry : staged - 1, piece};
}

// Stages the block's mapped rows of B for this stage in EntryLayout, in the layout's own order:
// turn t fills the buffer's t-th piece (Wide: 16 bytes, full tiles whose rows start 16-byte
// aligned; else one value, a zero for columns at or past `active`), so a warp's stores are
// contiguous. An octet's places past the last entry take copies of it (the buffer spans whole
// octets), which keeps the turns free of branches.
template <int R, bool Wide, typename V, typename I>
__device__ __forceinline__ void stage_entries(SharedPtr<V> buf, const I* __restrict__ map, int staged,
                                              const V* __restrict__ bk, size_type ldb, int active) {
    using Piece = StagePiece<R, Wide, V>;
    using Layout = EntryLayout<R, V>;
    const auto where = [staged](int t) { return entry_turn<R, V, Piece::per>(t, staged); };
    const int turns = static_cast<int>(Layout::span(staged)) / Piece::per;
    stage_pieces<R, Wide>(map, turns, bk, ldb, active, where, [&](int t, StageTurn, const typename Piece::Load& x) {
        if constexpr (Wide)
            *pointer_cast<Chunk16<V>>(buf + t * Piece::per) = x;
        else
            buf[t] = x;
    });
}

}  // namespace tessel::cuda::detail
