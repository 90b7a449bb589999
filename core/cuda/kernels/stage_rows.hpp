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

// What one thread stages per turn t: Wide (a full tile whose rows start 16-byte aligned) 16
// bytes of a row, else one value (R consecutive turns read one row's R values; columns at or
// past `active` are not B's: a zero is staged, read from column 0's address).
template <int R, bool Wide, typename V>
struct StagePiece {
    static constexpr int per = Wide ? 16 / static_cast<int>(sizeof(V)) : 1;  // values per load
    static constexpr int per_row = R / per;                                  // turns per staged row
    using Load = std::conditional_t<Wide, Chunk16<V>, V>;

    template <typename I>
    __device__ static Load load(const V* __restrict__ bk, size_type ldb, I row, int t, int active) {
        if constexpr (Wide) {
            return *reinterpret_cast<const Chunk16<V>*>(bk + static_cast<size_type>(row) * ldb + (t % per_row) * per);
        } else {
            const int kk = t % R;
            const V v = bk[static_cast<size_type>(row) * ldb + (kk < active ? kk : 0)];
            return kk < active ? v : V(0);
        }
    }
    __device__ static void store(SharedPtr<V> buf, int stride, int t, const Load& x) {
        const int n = t / per_row, q = t % per_row;
        if constexpr (Wide) {
#pragma unroll
            for (int j = 0; j < per; ++j) buf[(q * per + j) * stride + n] = x.v[j];
        } else {
            buf[q * stride + n] = x;
        }
    }
};

// Gathers the block's mapped rows of B for this stage, store(t, piece) for each turn t of
// StagePiece: whole batches of stage_batch turns per thread, then the tail (fewer than
// stage_batch turns) one by one. The layout in shared memory is the store's.
template <int R, bool Wide, typename V, typename I, typename Store>
__device__ __forceinline__ void stage_pieces(const I* __restrict__ map, int staged, const V* __restrict__ bk,
                                             size_type ldb, int active, Store&& store) {
    using Piece = StagePiece<R, Wide, V>;
    const int total = staged * Piece::per_row, step = static_cast<int>(blockDim.x);
    int t = threadIdx.x;
    for (; t + (stage_batch - 1) * step < total; t += stage_batch * step) {
        I row[stage_batch];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) row[u] = map[(t + u * step) / Piece::per_row];
        typename Piece::Load x[stage_batch];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) x[u] = Piece::load(bk, ldb, row[u], t + u * step, active);
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) store(t + u * step, x[u]);
    }
    for (; t < total; t += step) store(t, Piece::load(bk, ldb, map[t / Piece::per_row], t, active));
}

// Stages the block's mapped rows of B for this stage into buf[kk*stride + n].
template <int R, bool Wide, typename V, typename I>
__device__ __forceinline__ void stage_rows(SharedPtr<V> buf, const I* __restrict__ map, int staged, int stride,
                                           const V* __restrict__ bk, size_type ldb, int active) {
    using Piece = StagePiece<R, Wide, V>;
    stage_pieces<R, Wide>(map, staged, bk, ldb, active,
                          [&](int t, const typename Piece::Load& x) { Piece::store(buf, stride, t, x); });
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
