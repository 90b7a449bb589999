// The cuda engine's kernels: the fused layer (tiled ELL SpMM + bias + ReLU + cap + live flags,
// the input columns gathered while staged) and the compaction that stays on the device.
#include <algorithm>
#include <string>

#include "apps/spdnn/engines/cuda_layer_kernels.hpp"
#include "apps/spdnn/engines/layer_compaction.hpp"
#include "apps/spdnn/engines/layer_launch.hpp"
#include "core/cuda/kernels/slot_sums.hpp"
#include "core/cuda/kernels/tile_store.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/cuda/runtime/device_limits.hpp"
#include "core/error.hpp"

namespace tessel::spdnn::device {

namespace {

using detail::compact_flags;
using detail::compact_if_last;

constexpr int warp_size = 32;
constexpr unsigned full_mask = 0xffffffffu;
// Blocks per multiprocessor the automatic register factor leaves room for (as core's kernel:
// a block waits on its staging loads at every stage and only other blocks hide that).
constexpr size_type resident_blocks_wanted = 3;
// The automatic register factor's largest value: narrow tiles give the layers more blocks, which
// the later layers (about a thousand live images) need more than the reuse of wide ones (an
// H200, 60000 images x 120 layers: 8 against the 16 that shared memory allowed at 1024 neurons,
// 1.31e13 against 1.19e13 edges/s; against 32 at 4096, 2.99e13 against 2.50e13).
constexpr int automatic_factor_limit = 8;
constexpr int compact_threads = 1024;
constexpr int pass_threads = 256;

// A thread with 128 bytes of accumulators gets up to 128 registers (512 threads per block).
constexpr int max_threads(int factor) { return factor * static_cast<int>(sizeof(Value)) >= 128 ? 512 : 1024; }

// The layer kernel comes in variants by the resident blocks per multiprocessor its registers
// are sized for. Compiled for 1024 threads every factor got 64 registers, so four blocks of 256
// fit an SM: at R = 8 the late layers at 1024 neurons (about 1200 live images, 588 blocks) ran
// in two waves on 132 SMs where the stage's shared memory allowed six blocks (at 4096 and 16384
// neurons, stages of 288 inputs, it allows eight). Blocks of at most narrow_threads threads
// (the default 256 block rows) take the variant for as many blocks as shared memory and threads
// allow (ptxas sm_90, no spills: R = 4 and 8 in 32 registers for eight blocks, R = 8 in 40 for
// six, R = 16 in 80 for three); R = 4 otherwise keeps 64 registers (four blocks) as before.
// Blocks of 512 or 1024 rows stage a tile's inputs once for two or four times the rows of a
// block of 256 (at 1024 neurons a thread stages 16 or 8 values per tile instead of 32): at
// R <= 8 they take the variant for a full SM of 2048 threads (32 registers) when shared memory
// holds that many.
constexpr int narrow_threads = 256;
constexpr int full_sm_threads = 2048;
constexpr int usual_min_blocks(int factor) { return factor <= 4 ? 4 : factor == 8 ? 6 : factor == 16 ? 3 : 1; }

// A kernel variant: the block size it is compiled for and the resident blocks it is sized for.
struct Variant {
    int threads, min_blocks;
};
Variant variant_for(int factor, size_type block_rows, size_type resident) {
    if (block_rows <= narrow_threads)
        return {narrow_threads, factor <= 8 && resident >= 8 ? 8 : usual_min_blocks(factor)};
    const int wide = block_rows <= 512 ? 512 : 1024;
    if (factor <= 8 && resident * wide >= full_sm_threads) return {wide, full_sm_threads / wide};
    return {max_threads(factor), 1};
}

// The staged columns sit at least max_stage_entries apart, so that a warp's stores while it
// stages hit 32 different banks (core's conflict_free_stride).
int stage_stride(size_type max_stage_entries, int factor) {
    return cuda::detail::conflict_free_stride(max_stage_entries, factor);
}

// Loads each thread has in flight while it stages (as core's tiled ELL kernel): a batch's map
// entries, then its inputs, then the stores, in one branch-free block. One load pair per turn
// (the loop as first written: 32 dependent pairs per thread and stage at 1024 neurons) left the
// late layers, with a few hundred blocks, waiting on the loads.
constexpr int stage_batch = 4;
// ELL slots whose value and index loads a thread issues before it sums the first.
constexpr int slot_batch = 4;

// buf[kk*stride + n] := in(map[n], column kk of the tile) for n < staged: this thread's column
// (mine: src[k0 + kk], or column 0 read and a zero staged when the tile has no column kk), the
// rows n = threadIdx.x / R + j·rows_per_pass; R consecutive threads copy one staged row
// (coalesced when src is contiguous).
template <int R>
__device__ __forceinline__ void stage_columns(cuda::SharedPtr<Value> buf, const Index* __restrict__ map, int staged,
                                              int stride, const Columns& cols, size_type my_col, bool mine,
                                              int rows_per_pass) {
    cuda::SharedPtr<Value> out = buf + (threadIdx.x % R) * stride;
    int n = threadIdx.x / R;
    for (; n + (stage_batch - 1) * rows_per_pass < staged; n += stage_batch * rows_per_pass) {
        Index row[stage_batch];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) row[u] = map[n + u * rows_per_pass];
        Value x[stage_batch];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) x[u] = cols.in[static_cast<size_type>(row[u]) * cols.ld + my_col];
#pragma unroll
        for (int u = 0; u < stage_batch; ++u) out[n + u * rows_per_pass] = mine ? x[u] : Value(0);
    }
    for (; n < staged; n += rows_per_pass) {
        const Value x = cols.in[static_cast<size_type>(map[n]) * cols.ld + my_col];
        out[n] = mine ? x : Value(0);
    }
}

// One block per row block (blockDim.x == block_rows) and column tile k0 .. k0+R, for the tiles
// blockIdx.y, blockIdx.y + gridDim.y, ... below *count. Per stage the block's mapped rows of
// the input, columns src[k0 ..], are staged in shared memory (buf[kk*stride + n] = in(map[n],
// src[k0+kk])); each thread sums its row's ELL slots in order (the reference's order) into R
// registers, applies the epilogue, stores its row and votes with its warp on the live flags;
// the last block to finish compacts the flags into the next layer's columns.
template <int R, int Threads, int MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks)
    fused_layer_kernel(LayerArrays w, Columns cols, Compaction next, Epilogue<Value> ep, int stride) {
    TESSEL_DYNAMIC_SHARED(Value, buf);
    const int k = *cols.count;
    const size_type block = blockIdx.x;
    const int lane = threadIdx.x % warp_size;
    const int warp = threadIdx.x / warp_size;
    const int warps = blockDim.x / warp_size;
    // blockDim.x is a multiple of R: a thread stages the same column of every row it copies.
    const int my_kk = threadIdx.x % R;
    const int rows_per_pass = blockDim.x / R;
    const size_type row = block * w.block_rows + threadIdx.x;
    const size_type stage_begin = w.buffdispl[block], stage_end = w.buffdispl[block + 1];
    const bool chunked = cuda::detail::rows_in_chunks<R>(cols.out, cols.ld);
    for (int k0 = blockIdx.y * R; k0 < k; k0 += gridDim.y * R) {
        const int active = k - k0 < R ? k - k0 : R;
        const size_type my_col = my_kk < active ? cols.src[k0 + my_kk] : 0;
        Value acc[R];
#pragma unroll
        for (int kk = 0; kk < R; ++kk) acc[kk] = Value(0);
        for (size_type s = stage_begin; s < stage_end; ++s) {
            const size_type m0 = w.mapdispl[s];
            const int staged = static_cast<int>(w.mapdispl[s + 1] - m0);
            const Index* __restrict__ map = w.map + m0;
            stage_columns<R>(buf, map, staged, stride, cols, my_col, my_kk < active, rows_per_pass);
            __syncthreads();
            // The warp's ELL slots of this stage: lane r of slot m is entry m*32 + r.
            const size_type* wd = w.warpdispl + s * warps + warp;
            cuda::detail::sum_slots<R, slot_batch>(acc, [&](size_type e) { return w.values[e]; }, w.index, buf, stride,
                                                   lane, wd[0], wd[1]);
            __syncthreads();  // the next stage (or tile) overwrites the buffer
        }
        const bool mine = row < w.rows;
#pragma unroll
        for (int kk = 0; kk < R; ++kk) {
            acc[kk] = ep.apply(acc[kk], Value(0));
            // One write per warp and column; every writer writes the same value.
            if (__any_sync(full_mask, mine && kk < active && acc[kk] != Value(0)) && lane == 0) cols.live[k0 + kk] = 1;
        }
        if (mine) cuda::detail::store_tile<R>(cols.out + row * cols.ld + k0, acc, active, chunked);
    }
    compact_if_last(cols.live, k, next, cuda::pointer_cast<int>(buf));
}

template <int R, int Threads, int MinBlocks>
void launch_variant(const LayerArrays& w, const Columns& cols, const Compaction& next, const Epilogue<Value>& ep,
                    const LayerLaunch& launch, cudaStream_t stream) {
    detail::allow_shared_once<fused_layer_kernel<R, Threads, MinBlocks>>(launch);
    const dim3 grid(static_cast<unsigned>(w.num_blocks), static_cast<unsigned>(launch.column_blocks));
    TESSEL_LAUNCH(grid, static_cast<unsigned>(w.block_rows), static_cast<std::size_t>(launch.shared_bytes), stream,
                  fused_layer_kernel<R, Threads, MinBlocks>)(w, cols, next, ep,
                                                             stage_stride(w.max_stage_entries, R));
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <int R>
void launch_fused(const LayerArrays& w, const Columns& cols, const Compaction& next, const Epilogue<Value>& ep,
                  const LayerLaunch& launch, cudaStream_t stream) {
    const int threads = launch.variant_threads, blocks = launch.min_blocks;
    if constexpr (R <= 8) {
        if (threads == narrow_threads && blocks == 8)
            return launch_variant<R, narrow_threads, 8>(w, cols, next, ep, launch, stream);
        if (threads == 512 && blocks == 4) return launch_variant<R, 512, 4>(w, cols, next, ep, launch, stream);
        if (threads == 1024 && blocks == 2) return launch_variant<R, 1024, 2>(w, cols, next, ep, launch, stream);
    }
    if (threads == narrow_threads)
        return launch_variant<R, narrow_threads, usual_min_blocks(R)>(w, cols, next, ep, launch, stream);
    launch_variant<R, max_threads(R), 1>(w, cols, next, ep, launch, stream);
}

__global__ void compact_live_kernel(std::int32_t* live, const std::int32_t* count, Compaction next) {
    TESSEL_SHARED_ARRAY(int, totals, compact_threads);
    compact_flags<8, 8>(live, *count, next, totals);
}

__global__ void identity_kernel(std::int32_t* src, std::int32_t* count, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n; j += stride)
        src[j] = static_cast<std::int32_t>(j);
    if (blockIdx.x == 0 && threadIdx.x == 0) *count = static_cast<std::int32_t>(n);
}

// Grid-stride over rows x *count entries.
__global__ void gather_kernel(const Value* in, const std::int32_t* src, const std::int32_t* count, Value* out,
                              long long rows, long long ld) {
    const long long k = *count;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k; e += stride) {
        const long long r = e / k, j = e % k;
        out[r * ld + j] = in[r * ld + src[j]];
    }
}

// Thread per column (grid-stride), blockIdx.y per strip of rows.
__global__ void mark_live_kernel(const Value* c, const std::int32_t* count, std::int32_t* live, long long rows,
                                 long long ld, long long strip) {
    const long long k = *count;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long r0 = blockIdx.y * strip, r1 = r0 + strip < rows ? r0 + strip : rows;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < k; j += stride)
        for (long long r = r0; r < r1; ++r)
            if (c[r * ld + j] != Value(0)) {
                live[j] = 1;  // every writer writes the same value
                break;
            }
}

unsigned blocks_for(size_type work, size_type limit) {
    return static_cast<unsigned>(std::clamp<size_type>((work + pass_threads - 1) / pass_threads, 1, limit));
}

}  // namespace

LayerLaunch plan_layer(const LayerArrays& w, size_type max_columns, int requested) {
    if (requested != 0 && requested != 4 && requested != 8 && requested != 16 && requested != 32)
        TESSEL_INVALID_INPUT("--register", 0,
                             std::to_string(requested) + " is not one of the cuda layer's factors 4, 8, 16, 32");
    if (w.block_rows <= 0 || w.block_rows % warp_size != 0 || w.block_rows > 1024)
        TESSEL_INVALID_INPUT("--block-rows", 0,
                             std::to_string(w.block_rows) +
                                 " must be a multiple of 32 of at most 1024 on cuda (one thread per row)");
    const auto limits = cuda::detail::current_device_limits();
    const size_type budget = requested != 0
                                 ? limits.shared_per_block_optin
                                 : std::min(limits.shared_per_block_optin,
                                            limits.shared_per_multiprocessor / resident_blocks_wanted);
    int factor = requested != 0 ? requested : automatic_factor_limit;
    const auto stage_bytes = [&](int r) {
        return size_type(stage_stride(w.max_stage_entries, r)) * r * size_type(sizeof(Value));
    };
    while (factor > 4 && (stage_bytes(factor) > budget || w.block_rows > max_threads(factor))) factor /= 2;
    LayerLaunch launch;
    launch.register_factor = factor;
    // At least the compaction's counts (compact_if_last) in the stage buffer.
    launch.shared_bytes = std::max(stage_bytes(factor), size_type(w.block_rows * sizeof(int)));
    launch.shared_without_optin = limits.shared_per_block;
    launch.shared_optin = limits.shared_per_block_optin;
    if (launch.shared_bytes > limits.shared_per_block_optin || w.block_rows > max_threads(factor))
        TESSEL_THROW(CudaError, "spdnn cuda layer: a stage of " + std::to_string(w.max_stage_entries) +
                                    " inputs x " + std::to_string(factor) + " columns needs " +
                                    std::to_string(launch.shared_bytes) + " bytes of shared memory, the device allows " +
                                    std::to_string(limits.shared_per_block_optin));
    const size_type resident = std::min(limits.shared_per_multiprocessor / std::max<size_type>(launch.shared_bytes, 1),
                                        size_type(2048) / w.block_rows);
    const Variant variant = variant_for(factor, w.block_rows, resident);
    launch.variant_threads = variant.threads;
    launch.min_blocks = variant.min_blocks;
    const size_type compiled_threads = size_type(variant.threads) * variant.min_blocks;
    const size_type per_sm =
        std::max<size_type>(1, std::min(resident, cuda::detail::blocks_by_registers(compiled_threads, w.block_rows)));
    launch.column_blocks = detail::column_blocks(w, max_columns, factor, per_sm, limits.sm_count);
    return launch;
}

void fused_layer(const LayerArrays& w, const Columns& cols, const Compaction& next, const Epilogue<Value>& ep,
                 const LayerLaunch& launch, cudaStream_t stream) {
    TESSEL_ENSURE_DIMS(!ep.reads_output(), "spdnn cuda layer: the epilogue must not read the output (beta = 0)");
    if (w.num_blocks == 0) return compact_live(cols.live, cols.count, next, stream);  // no block to do it
    switch (launch.register_factor) {
    case 32: launch_fused<32>(w, cols, next, ep, launch, stream); break;
    case 16: launch_fused<16>(w, cols, next, ep, launch, stream); break;
    case 8: launch_fused<8>(w, cols, next, ep, launch, stream); break;
    default: launch_fused<4>(w, cols, next, ep, launch, stream); break;
    }
}

void compact_live(std::int32_t* live, const std::int32_t* count, const Compaction& next, cudaStream_t stream) {
    TESSEL_LAUNCH(1, compact_threads, 0, stream, compact_live_kernel)(live, count, next);
    TESSEL_CUDA_CHECK_LAUNCH();
}

void identity_columns(std::int32_t* src, std::int32_t* count, size_type n, cudaStream_t stream) {
    TESSEL_LAUNCH(blocks_for(n, 1024), pass_threads, 0, stream, identity_kernel)(src, count, n);
    TESSEL_CUDA_CHECK_LAUNCH();
}

void gather_columns(const Value* in, const std::int32_t* src, const std::int32_t* count, Value* out, size_type rows,
                    size_type ld, size_type max_columns, cudaStream_t stream) {
    if (rows == 0 || max_columns == 0) return;
    TESSEL_LAUNCH(blocks_for(rows * max_columns, 65536), pass_threads, 0, stream, gather_kernel)(in, src, count, out,
                                                                                                 rows, ld);
    TESSEL_CUDA_CHECK_LAUNCH();
}

void mark_live(const Value* c, const std::int32_t* count, std::int32_t* live, size_type rows, size_type ld,
               size_type max_columns, cudaStream_t stream) {
    if (rows == 0 || max_columns == 0) return;
    constexpr size_type strip = 64;
    const size_type strips = std::min<size_type>((rows + strip - 1) / strip, 65535);
    const size_type per_strip = (rows + strips - 1) / strips;
    const dim3 grid(blocks_for(max_columns, 65535), static_cast<unsigned>(strips));
    TESSEL_LAUNCH(grid, pass_threads, 0, stream, mark_live_kernel)(c, count, live, rows, ld, per_strip);
    TESSEL_CUDA_CHECK_LAUNCH();
}

}  // namespace tessel::spdnn::device
