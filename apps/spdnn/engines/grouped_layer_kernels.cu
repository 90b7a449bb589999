// The row-group layer kernel: the fused layer (SpMM + bias + ReLU + cap + live flags, the input
// columns gathered while staged, the compaction in its last block) on a layer in row groups
// (core/formats/grouped_ell.hpp). The tiled kernel reads one staged input per multiply-add, and
// shared memory's 32 reads a clock per SM bound its first layers (an H200 at 4096 neurons: layer
// 1, 60000 images, at 39 % of that bound, the first six layers 7.7 of the 12.5 ms of layers).
// The Graph Challenge's layers have 16 output neurons with the same inputs (J16 ⊗ B_k), which
// --reorder puts side by side, so a thread of G of them reads each staged input once for G
// multiply-adds, and core's row-group loop (group_slots.hpp) sums them.
#include <algorithm>
#include <string>

#include "apps/spdnn/engines/cuda_layer_kernels.hpp"
#include "apps/spdnn/engines/layer_compaction.hpp"
#include "apps/spdnn/engines/layer_launch.hpp"
#include "core/cuda/kernels/group_slots.hpp"
#include "core/cuda/kernels/stage_entries.hpp"
#include "core/cuda/kernels/tile_store.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/cuda/runtime/device_limits.hpp"
#include "core/error.hpp"
#include "core/formats/grouped_ell.hpp"

namespace tessel::spdnn::device {

namespace {

constexpr int warp_size = 32;
constexpr unsigned full_mask = 0xffffffffu;
constexpr int group_threads = static_cast<int>(grouped_ell_max_threads);
// Blocks an SM holds at most (sm_90).
constexpr size_type max_blocks_per_sm = 32;
// Loads each thread has in flight while it stages: twice the tiled layer kernel's four, as a
// block has a G-th of its threads to stage the same inputs (a late layer's block waits on a
// chain of such rounds). ptxas sm_90: 105-127 registers, no spill (with four, 88-128 and two
// variants spilled 20-36 bytes).
constexpr int stage_batch = 8;

using cuda::detail::entry_turn;
using cuda::detail::EntryLayout;
using detail::compact_if_last;

// The stage's mapped input rows, columns tile_cols[kk] of `in` (-1: past the batch's columns, a
// zero staged), into buf in EntryLayout, one value a turn in the layout's order (entry_turn):
// turn t stores buf[t], so a warp's stores are contiguous.
template <int R>
__device__ __forceinline__ void stage_gathered(cuda::SharedPtr<Value> buf, const Index* __restrict__ map, int staged,
                                               const Value* __restrict__ in, size_type ld,
                                               cuda::SharedPtr<int> tile_cols) {
    const int turns = static_cast<int>(EntryLayout<R, Value>::span(staged));
    const int step = static_cast<int>(blockDim.x);
    int t = threadIdx.x;
    for (; t + (stage_batch - 1) * step < turns; t += stage_batch * step) {
        size_type at[stage_batch];
        bool real[stage_batch];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) {
            const cuda::detail::StageTurn turn = entry_turn<R, Value, 1>(t + u * step, staged);
            const int col = tile_cols[turn.piece];
            real[u] = col >= 0;
            at[u] = static_cast<size_type>(map[turn.entry]) * ld + (col >= 0 ? col : 0);
        }
        Value x[stage_batch];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) x[u] = in[at[u]];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) buf[t + u * step] = real[u] ? x[u] : Value(0);
    }
    for (; t < turns; t += step) {
        const cuda::detail::StageTurn turn = entry_turn<R, Value, 1>(t, staged);
        const int col = tile_cols[turn.piece];
        const Value x = in[static_cast<size_type>(map[turn.entry]) * ld + (col >= 0 ? col : 0)];
        buf[t] = col >= 0 ? x : Value(0);
    }
}

// The epilogue on a thread's G rows, the warp's vote on each column's live flag, the stores.
template <int G, int R>
__device__ __forceinline__ void finish_tile(Value (&acc)[G][R], const LayerArrays& w, const Columns& cols,
                                            const Epilogue<Value>& ep, size_type first_row, int k0, int active,
                                            int lane, bool chunked) {
#pragma unroll
    for (int kk = 0; kk < R; ++kk) {
        bool nonzero = false;
#pragma unroll
        for (int g = 0; g < G; ++g) {
            acc[g][kk] = ep.apply(acc[g][kk], Value(0));
            nonzero = nonzero || (first_row + g < w.rows && acc[g][kk] != Value(0));
        }
        // One write per warp and column; every writer writes the same value.
        if (__any_sync(full_mask, kk < active && nonzero) && lane == 0) cols.live[k0 + kk] = 1;
    }
#pragma unroll
    for (int g = 0; g < G; ++g)
        if (first_row + g < w.rows)
            cuda::detail::store_tile<R>(cols.out + (first_row + g) * cols.ld + k0, acc[g], active, chunked);
}

// One block per row block (blockDim.x == block_rows / G) and column tile k0 .. k0+R, for the
// tiles blockIdx.y, blockIdx.y + gridDim.y, ... below *count; thread t owns rows
// block*block_rows + t*G + g. tile_cols (R ints after the staging buffer, at cols_at values)
// holds the tile's input columns.
template <int G, int R>
__global__ void __launch_bounds__(group_threads, 1)
    grouped_layer_kernel(LayerArrays w, Columns cols, Compaction next, Epilogue<Value> ep, int cols_at) {
    TESSEL_DYNAMIC_SHARED(Value, buf);
    const cuda::SharedPtr<int> tile_cols = cuda::pointer_cast<int>(buf + cols_at);
    const int k = *cols.count;
    const size_type block = blockIdx.x;
    const int lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size;
    const int warps = blockDim.x / warp_size;
    const size_type first_row = block * w.block_rows + static_cast<size_type>(threadIdx.x) * G;
    const size_type stage_begin = w.buffdispl[block], stage_end = w.buffdispl[block + 1];
    const bool chunked = cuda::detail::rows_in_chunks<R>(cols.out, cols.ld);
    for (int k0 = blockIdx.y * R; k0 < k; k0 += gridDim.y * R) {
        const int active = k - k0 < R ? k - k0 : R;
        // The last tile's stages are done with tile_cols (each ends on a barrier).
        if (threadIdx.x < R)
            tile_cols[threadIdx.x] = static_cast<int>(threadIdx.x) < active ? cols.src[k0 + threadIdx.x] : -1;
        __syncthreads();
        Value acc[G][R];
#pragma unroll
        for (int g = 0; g < G; ++g)
#pragma unroll
            for (int kk = 0; kk < R; ++kk) acc[g][kk] = Value(0);
        for (size_type s = stage_begin; s < stage_end; ++s) {
            const size_type m0 = w.mapdispl[s];
            stage_gathered<R>(buf, w.map + m0, static_cast<int>(w.mapdispl[s + 1] - m0), cols.in, cols.ld, tile_cols);
            __syncthreads();
            const size_type* wd = w.warpdispl + s * warps + warp;
            const size_type slot_lane = wd[0] * warp_size + lane;
            cuda::detail::sum_slots_from<R, G>(acc, w.index + slot_lane, w.values + slot_lane * G, buf,
                                               static_cast<int>(wd[1] - wd[0]));
            __syncthreads();  // the next stage (or tile) overwrites the buffer
        }
        finish_tile<G, R>(acc, w, cols, ep, first_row, k0, active, lane, chunked);
    }
    compact_if_last(cols.live, k, next, cuda::pointer_cast<int>(buf));
}

// The staging buffer's values: whole octets of entries (EntryLayout::span).
size_type stage_values(const LayerArrays& w, int factor) {
    return cuda::detail::octet_entries(w.max_stage_entries) * factor;
}

template <int G, int R>
void launch_grouped(const LayerArrays& w, const Columns& cols, const Compaction& next, const Epilogue<Value>& ep,
                    const LayerLaunch& launch, cudaStream_t stream) {
    detail::allow_shared_once<grouped_layer_kernel<G, R>>(launch);
    const dim3 grid(static_cast<unsigned>(w.num_blocks), static_cast<unsigned>(launch.column_blocks));
    TESSEL_LAUNCH(grid, static_cast<unsigned>(w.block_rows / G), static_cast<std::size_t>(launch.shared_bytes), stream,
                  grouped_layer_kernel<G, R>)(w, cols, next, ep, static_cast<int>(stage_values(w, R)));
    TESSEL_CUDA_CHECK_LAUNCH();
}

// G·R accumulators a thread: 32 (R = 32 / G) or 64 (R = 64 / G), as core's row-group kernel.
template <int G>
void launch_group(const LayerArrays& w, const Columns& cols, const Compaction& next, const Epilogue<Value>& ep,
                  const LayerLaunch& launch, cudaStream_t stream) {
    if (launch.register_factor * G == 64) return launch_grouped<G, 64 / G>(w, cols, next, ep, launch, stream);
    launch_grouped<G, 32 / G>(w, cols, next, ep, launch, stream);
}

// The register factor: `requested`, or 32 / group for 0. Throws InvalidInput for one the groups
// do not take.
int group_factor(size_type group, int requested) {
    const int narrow = static_cast<int>(32 / group);
    if (requested == 0) return narrow;
    if (!row_group_factor_fits(group, sizeof(Value), requested))
        TESSEL_INVALID_INPUT("--register", 0,
                             std::to_string(requested) + " for row groups of " + std::to_string(group) + ": " +
                                 std::to_string(narrow) + " or " + std::to_string(2 * narrow) +
                                 " (32 or 64 accumulators a thread)");
    return requested;
}

// The staging buffer, then the tile's columns (R ints); the compaction's counts (one int a
// thread) at its start. Throws CudaError when the device has not that much for a block.
size_type group_shared_bytes(const LayerArrays& w, int factor, const cuda::detail::DeviceLimits& limits) {
    const size_type staging = stage_values(w, factor) * size_type(sizeof(Value)) + factor * size_type(sizeof(int));
    const size_type bytes = std::max(staging, w.block_rows / w.group * size_type(sizeof(int)));
    if (bytes > limits.shared_per_block_optin)
        TESSEL_THROW(CudaError, "spdnn cuda row-group layer: a stage of " + std::to_string(w.max_stage_entries) +
                                    " inputs x " + std::to_string(factor) + " columns needs " + std::to_string(bytes) +
                                    " bytes of shared memory, the device allows " +
                                    std::to_string(limits.shared_per_block_optin));
    return bytes;
}

}  // namespace

LayerLaunch plan_grouped_layer(const LayerArrays& w, size_type max_columns, int requested) {
    check_row_groups(w.group, w.block_rows);
    const auto limits = cuda::detail::current_device_limits();
    LayerLaunch launch;
    launch.register_factor = group_factor(w.group, requested);
    launch.shared_bytes = group_shared_bytes(w, launch.register_factor, limits);
    launch.shared_without_optin = limits.shared_per_block;
    launch.shared_optin = limits.shared_per_block_optin;
    const size_type threads = w.block_rows / w.group;
    launch.variant_threads = static_cast<int>(threads);
    const size_type resident =
        std::min({limits.shared_per_multiprocessor / launch.shared_bytes, size_type(2048) / threads, max_blocks_per_sm,
                  cuda::detail::blocks_by_registers(group_threads, threads)});
    launch.min_blocks = static_cast<int>(std::max<size_type>(resident, 1));
    launch.column_blocks =
        detail::column_blocks(w, max_columns, launch.register_factor, launch.min_blocks, limits.sm_count);
    return launch;
}

void grouped_layer(const LayerArrays& w, const Columns& cols, const Compaction& next, const Epilogue<Value>& ep,
                   const LayerLaunch& launch, cudaStream_t stream) {
    TESSEL_ENSURE_DIMS(!ep.reads_output(), "spdnn cuda row-group layer: the epilogue must not read the output");
    if (w.num_blocks == 0) return compact_live(cols.live, cols.count, next, stream);  // no block to do it
    switch (w.group) {
    case 2: return launch_group<2>(w, cols, next, ep, launch, stream);
    case 4: return launch_group<4>(w, cols, next, ep, launch, stream);
    case 8: return launch_group<8>(w, cols, next, ep, launch, stream);
    default:
        TESSEL_INVALID_INPUT("--row-groups", 0,
                             std::to_string(w.group) + " is not one of the cuda layer's groups 2, 4, 8");
    }
}

}  // namespace tessel::spdnn::device
