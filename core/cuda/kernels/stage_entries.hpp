// The row-group kernel's staging (device code, internal): a stage's mapped rows of B in shared
// memory entry by entry, each entry's R values together in 16-byte chunks, so that a thread
// reads them as R / (16 / sizeof(V)) 16-byte loads at addresses fixed when it has the entry's
// position. The tiled kernel's layout (stage_rows.hpp, column kk at kk*stride) needs one load
// and one address sum per column: the row-group kernel issues more instructions than its shared
// memory serves, so these count.
#pragma once

#include "core/cuda/kernels/stage_rows.hpp"
#include "core/cuda/kernels/tile_store.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/types.hpp"

namespace tessel::cuda::detail {

// Entry n's chunk c lies at buf[n*R + (c ^ n / E mod S)*per]. A quarter warp's 16-byte reads
// (eight lanes, one wavefront when they meet eight distinct groups of four banks) of chunk c of
// entries with distinct n mod 8 then meet distinct bank groups: with S = min(chunks, 8) and
// E = 8 / S entries to 128 bytes, the group is (n mod E)*S + (c mod S ^ n / E mod S), a
// one-to-one map of n mod 8. The host's bank order for row groups gives each quarter warp
// distinct n mod 8 (core/formats/grouped_ell.hpp, grouped_bank_groups).
template <int R, typename V>
struct EntryLayout {
    static constexpr int per = 16 / static_cast<int>(sizeof(V));  // values per chunk
    static constexpr int chunks = R / per;                         // chunks per entry
    static constexpr int span = chunks < 8 ? chunks : 8;           // chunks an entry's swizzle permutes
    static constexpr int entries_per_row = 8 / span;               // entries per 128 bytes (or 1)
    static_assert(R % per == 0 && chunks >= 1 && (chunks & (chunks - 1)) == 0,
                  "an entry is a power of two of 16-byte chunks");

    /// Entry n's chunk c at n*R + (c*per ^ swizzle(n)): per is a power of two.
    __device__ static int swizzle(int n) { return n / entries_per_row % span * per; }
    __device__ static int offset(int n, int c) { return n * R + (c * per ^ swizzle(n)); }
};

// Stages the block's mapped rows of B for this stage in EntryLayout (stage_pieces): Wide (full
// tiles whose rows start 16-byte aligned) 16 bytes a turn, loaded and stored whole, else one
// value a turn (a zero for columns at or past `active`, as stage_rows).
template <int R, bool Wide, typename V, typename I>
__device__ __forceinline__ void stage_entries(SharedPtr<V> buf, const I* __restrict__ map, int staged,
                                              const V* __restrict__ bk, size_type ldb, int active) {
    using Piece = StagePiece<R, Wide, V>;
    using Layout = EntryLayout<R, V>;
    stage_pieces<R, Wide>(map, staged, bk, ldb, active, [&](int t, const typename Piece::Load& x) {
        const int n = t / Piece::per_row, q = t % Piece::per_row;
        if constexpr (Wide)
            *pointer_cast<Chunk16<V>>(buf + Layout::offset(n, q)) = x;
        else
            buf[Layout::offset(n, q / Layout::per) + q % Layout::per] = x;
    });
}

}  // namespace tessel::cuda::detail
