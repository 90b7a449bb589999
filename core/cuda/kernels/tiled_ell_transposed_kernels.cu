// The transposed tiled-ELL product on the device, C := epilogue(Aᵀ·B), on A's own tiles: one
// block per row block and register tile of R columns of B, so A is read ceil(k/R) times, not
// k times; per stage each thread adds its row's products into a shared-memory buffer of the
// stage's columns (atomics), then the buffer is added to a zeroed n x k scratch in global
// memory (atomics); the epilogue runs last. The sums' order depends on timing (float
// atomics), unlike the cpu kernel.
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/kernels/spmm_launch.hpp"
#include "core/cuda/kernels/tiled_ell_args.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/instantiate.hpp"

namespace tessel::cuda {

namespace {

constexpr int warp_size = 32;

using detail::TiledArgs;

// Columns k0 = blockIdx.y*R onwards of the k that B, C and the scratch (row stride ld_sums)
// have from their pointers on. Shared memory: buf[kk*stage_stride + n] sums column k0+kk of
// the stage's n-th mapped row.
template <int R, typename V, typename I>
__global__ void transposed_kernel(TiledArgs<V, I> a, const V* __restrict__ b, size_type ldb,
                                  V* __restrict__ sums, size_type k, size_type ld_sums) {
    TESSEL_DYNAMIC_SHARED(V, buf);
    const size_type block = blockIdx.x, k0 = static_cast<size_type>(blockIdx.y) * R;
    const int active = k - k0 < R ? static_cast<int>(k - k0) : R;
    const int lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size;
    const size_type warps = a.warps_per_block;
    const size_type row = block * a.block_rows + threadIdx.x;
    const int stride = a.stage_stride;
    V x[R];
#pragma unroll
    for (int kk = 0; kk < R; ++kk) x[kk] = row < a.rows && kk < active ? b[row * ldb + k0 + kk] : V(0);
    for (size_type s = a.buffdispl[block]; s < a.buffdispl[block + 1]; ++s) {
        const int staged = static_cast<int>(a.mapdispl[s + 1] - a.mapdispl[s]);
        for (int t = threadIdx.x; t < staged * R; t += blockDim.x) buf[(t % R) * stride + t / R] = V(0);
        __syncthreads();
        const size_type* wd = a.warpdispl + s * warps + warp;
        for (size_type m = wd[0]; m < wd[1]; ++m) {
            const size_type e = m * warp_size + lane;
            const V v = a.half_values ? V(__half2float(__ushort_as_half(a.half_values[e]))) : a.values[e];
            if (v == V(0)) continue;  // padding
            const int idx = a.index[e];
#pragma unroll
            for (int kk = 0; kk < R; ++kk)
                if (kk < active) atomicAdd(buf + kk * stride + idx, v * x[kk]);
        }
        __syncthreads();
        // R consecutive threads add one staged row's R sums: coalesced global atomics.
        const I* stage_map = a.map + a.mapdispl[s];
        for (int t = threadIdx.x; t < staged * R; t += blockDim.x) {
            const int n = t / R, kk = t % R;
            const V sum = buf[kk * stride + n];
            if (kk < active && sum != V(0))
                atomicAdd(sums + static_cast<size_type>(stage_map[n]) * ld_sums + k0 + kk, sum);
        }
        __syncthreads();  // the next stage clears the buffer
    }
}

template <typename V>
__global__ void transposed_epilogue(const V* __restrict__ sums, size_type rows, size_type k, V* __restrict__ c,
                                    size_type ldc, Epilogue<V> ep) {
    const size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= rows * k) return;
    const size_type r = i / k, j = i % k;
    c[r * ldc + j] = ep.apply(sums[i], c[r * ldc + j]);
}

// Blocks that should stay resident on a multiprocessor: the shared-memory atomics wait on
// each other, and only other blocks hide that (on an H200, 16 columns of 4096-entry stages:
// one block of 8 columns per SM, 2x slower than one column per block; six blocks of 2-8
// columns (4096-1024 entries), 15-16 ms against 19.5 ms for one column).
constexpr size_type resident_blocks_wanted = 6;

// Columns per block: as many as k asks for, up to 8, halved until six blocks' buffers fit
// a multiprocessor (at least one column, whose buffer must fit one block).
int transposed_factor(size_type k, int stride, std::size_t value_size, const detail::DeviceLimits& limits) {
    int factor = k >= 8 ? 8 : k >= 4 ? 4 : k >= 2 ? 2 : 1;
    const size_type budget = detail::shared_budget(limits, resident_blocks_wanted);
    while (factor > 1 && static_cast<size_type>(stride) * factor * static_cast<size_type>(value_size) > budget)
        factor /= 2;
    return factor;
}

template <int R, typename V, typename I>
void launch_transposed(const TiledArgs<V, I>& args, size_type blocks, DenseView<const V> b, V* sums,
                       size_type shared, const detail::DeviceLimits& limits, cudaStream_t stream) {
    if (shared > limits.shared_per_block)
        TESSEL_CUDA_CHECK(cudaFuncSetAttribute(transposed_kernel<R, V, I>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(limits.shared_per_block_optin)));
    const size_type tiles = (b.cols + R - 1) / R;
    constexpr size_type max_grid_y = 65535;
    for (size_type t0 = 0; t0 < tiles; t0 += max_grid_y) {
        const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(std::min(max_grid_y, tiles - t0)));
        // A launch past the first starts at column t0*R: B, the scratch and k shift with it.
        TESSEL_LAUNCH(grid, static_cast<unsigned>(args.block_rows), static_cast<std::size_t>(shared), stream,
                      transposed_kernel<R, V, I>)(args, b.data + t0 * R, b.ld, sums + t0 * R, b.cols - t0 * R, b.cols);
        TESSEL_CUDA_CHECK_LAUNCH();
    }
}

}  // namespace

namespace device {

template <typename V, typename I>
void spmm_tiled_ell_transposed(const DeviceTiledEll<V, I>& a, InputView<V> b, DenseView<V> c, const Epilogue<V>& ep,
                               cudaStream_t stream) {
    TESSEL_ENSURE_DIMS(a.rows() == b.rows && a.cols() == c.rows && b.cols == c.cols,
                       "cuda::spmm_tiled_ell_transposed: A is " + std::to_string(a.rows()) + "x" +
                           std::to_string(a.cols()) + ", B is " + std::to_string(b.rows) + "x" +
                           std::to_string(b.cols) + ", C is " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
    TESSEL_ENSURE_DIMS(b.layout == Layout::row_major && c.layout == Layout::row_major,
                       "cuda::spmm_tiled_ell_transposed: B and C must be row-major");
    const size_type k = b.cols;
    if (k == 0 || c.rows == 0) return;
    const auto limits = detail::current_device_limits();
    const TiledArgs<V, I> args = detail::tiled_args(a);
    const int stride = args.stage_stride;
    const int factor = transposed_factor(k, stride, sizeof(V), limits);
    const size_type shared = static_cast<size_type>(stride) * factor * static_cast<size_type>(sizeof(V));
    if (shared > limits.shared_per_block_optin)
        TESSEL_THROW(CudaError, "cuda::spmm_tiled_ell_transposed: a stage of " + std::to_string(a.max_stage_entries()) +
                                    " entries needs " + std::to_string(shared) + " bytes of shared memory, " +
                                    detail::current_device_name() + " allows " +
                                    std::to_string(limits.shared_per_block_optin));
    detail::StreamScratch scratch(static_cast<std::size_t>(c.rows * k) * sizeof(V), stream);
    V* sums = static_cast<V*>(scratch.get());
    TESSEL_CUDA_CHECK(cudaMemsetAsync(sums, 0, static_cast<std::size_t>(c.rows * k) * sizeof(V), stream));
    if (a.num_blocks() > 0) {
        switch (factor) {
        case 8: launch_transposed<8>(args, a.num_blocks(), b, sums, shared, limits, stream); break;
        case 4: launch_transposed<4>(args, a.num_blocks(), b, sums, shared, limits, stream); break;
        case 2: launch_transposed<2>(args, a.num_blocks(), b, sums, shared, limits, stream); break;
        default: launch_transposed<1>(args, a.num_blocks(), b, sums, shared, limits, stream); break;
        }
    }
    const size_type total = c.rows * k;
    TESSEL_LAUNCH(static_cast<unsigned>((total + 255) / 256), 256, 0, stream, transposed_epilogue<V>)(sums, c.rows, k, c.data,
                                                                                        c.ld, ep);
    TESSEL_CUDA_CHECK_LAUNCH();
}

#define TESSEL_INSTANTIATE(V, I)                                                                              \
    template void spmm_tiled_ell_transposed(const DeviceTiledEll<V, I>&, InputView<V>, DenseView<V>,         \
                                            const Epilogue<V>&, cudaStream_t);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace device

}  // namespace tessel::cuda
