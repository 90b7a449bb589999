// The staging of the tiled ELL product kernels (device code, internal): a stage's mapped rows
// of B gathered into shared memory, one register tile of columns, by every thread of the block.
// Core's tiled ELL kernel and its row-group kernel both run it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/cuda/kernels/tile_store.hpp"
#include "core/dense.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/types.hpp"

namespace tessel::cuda::detail {

// Loads each thread has in flight while it stages: a batch's map entries, then the batch's rows
// of B, then the stores, in one branch-free block. A loop of one load pair per turn waited for
// each pair in turn (the compiler's unrolled turns kept their exit branches between the loads):
// the stage's gather was the kernel's main stall on an H200 (ncu: 54 % of warp stalls on L1TEX,
// 35 % occupancy).
constexpr int stage_batch = 4;

// Where a turn of the staging goes: the stage's entry (its row of B is map[entry]) and the piece
// of that row (StagePiece).
struct StageTurn {
    int entry;
    int piece;
};

// What one thread stages per turn: Wide (a full tile whose rows start 16-byte aligned) 16 bytes
// of a row, else one value (a row's R pieces are its R values; columns at or past `active` are
// not B's: a zero is staged, read from column 0's address).
template <int R, bool Wide, typename V>
struct StagePiece {
    static constexpr int per = Wide ? 16 / static_cast<int>(sizeof(V)) : 1;  // values per load
    static constexpr int per_row = R / per;                                  // pieces per staged row
    using Load = std::conditional_t<Wide, Chunk16<V>, V>;

    template <typename I>
    __device__ static Load load(const V* __restrict__ bk, size_type ldb, I row, int piece, int active) {
        if constexpr (Wide) {
            return *reinterpret_cast<const Chunk16<V>*>(bk + static_cast<size_type>(row) * ldb + piece * per);
        } else {
            const V v = bk[static_cast<size_type>(row) * ldb + (piece < active ? piece : 0)];
            return piece < active ? v : V(0);
        }
    }
    // The tiled layout: column kk of entry n at buf[kk*stride + n].
    __device__ static void store(SharedPtr<V> buf, int stride, StageTurn at, const Load& x) {
        if constexpr (Wide) {
#pragma unroll
            for (int j = 0; j < per; ++j) buf[(at.piece * per + j) * stride + at.entry] = x.v[j];
        } else {
            buf[at.piece * stride + at.entry] = x;
        }
    }
};

// Gathers the block's mapped rows of B for this stage over `turns` turns: turn t loads piece
// where(t).piece of row map[where(t).entry] and hands it to store(t, where(t), piece); whole
// batches of stage_batch turns per thread, then the tail (fewer than stage_batch turns) one by
// one. The order of the turns and the layout in shared memory are the caller's. Each round
// calls where() again rather than keeping its turns: kept, they changed eleven of the tiled
// kernels' staging loops, ten of them longer by up to 11 instructions (SASS for sm_90); called
// again, none changed.
template <int R, bool Wide, typename V, typename I, typename Where, typename Store>
__device__ __forceinline__ void stage_pieces(const I* __restrict__ map, int turns, const V* __restrict__ bk,
                                             size_type ldb, int active, Where&& where, Store&& store) {
    using Piece = StagePiece<R, Wide, V>;
    const int step = static_cast<int>(blockDim.x);
    int t = threadIdx.x;
    for (; t + (stage_batch - 1) * step < turns; t += stage_batch * step) {
        I row[stage_batch];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) row[u] = map[where(t + u * step).entry];
        typename Piece::Load x[stage_batch];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) x[u] = Piece::load(bk, ldb, row[u], where(t + u * step).piece, active);
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) store(t + u * step, where(t + u * step), x[u]);
    }
    for (; t < turns; t += step) {
        const StageTurn at = where(t);
        store(t, at, Piece::load(bk, ldb, map[at.entry], at.piece, active));
    }
}

// Stages the block's mapped rows of B for this stage into buf[kk*stride + n], row by row.
template <int R, bool Wide, typename V, typename I>
__device__ __forceinline__ void stage_rows(SharedPtr<V> buf, const I* __restrict__ map, int staged, int stride,
                                           const V* __restrict__ bk, size_type ldb, int active) {
    using Piece = StagePiece<R, Wide, V>;
    stage_pieces<R, Wide>(
        map, staged * Piece::per_row, bk, ldb, active,
        [](int t) { return StageTurn{t / Piece::per_row, t % Piece::per_row}; },
        [&](int, StageTurn at, const typename Piece::Load& x) { Piece::store(buf, stride, at, x); });
}

// True when every tile of a launch may stage its rows 16 bytes at a time: full tiles whose rows
// start 16-byte aligned. TESSEL_CUDA_STAGING=scalar keeps the scalar loads (to compare on a card).
template <int R, typename V>
bool wide_staging(DenseView<const V> b, size_type k_first, size_type tiles) {
    static const bool scalar_forced = [] {
        const char* s = std::getenv("TESSEL_CUDA_STAGING");
        return s != nullptr && std::string(s) == "scalar";
    }();
    constexpr size_type chunk = 16;
    const auto address = reinterpret_cast<std::uintptr_t>(b.data + k_first);
    return !scalar_forced && (R * sizeof(V)) % chunk == 0 && k_first + tiles * R <= b.cols && address % chunk == 0 &&
           (b.ld * static_cast<size_type>(sizeof(V))) % chunk == 0;
}

}  // namespace tessel::cuda::detail
