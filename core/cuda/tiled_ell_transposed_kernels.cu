// The transposed tiled-ELL product on the device, C := epilogue(Aᵀ·B), on A's own tiles: one
// block per row block and column of B; per stage each thread adds its row's products into a
// shared-memory buffer of the stage's columns (atomics), then the buffer is added to a zeroed
// n x k scratch in global memory (atomics); the epilogue runs last. The sums' order depends
// on timing (float atomics), unlike the cpu kernel.
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_code.hpp"
#include "core/cuda/spmm_launch.hpp"
#include "core/cuda/device_spmm.hpp"
#include "core/instantiate.hpp"

namespace tessel::cuda {

namespace {

constexpr int warp_size = 32;

template <typename V, typename I>
__global__ void transposed_kernel(size_type rows, size_type block_rows, const size_type* __restrict__ buffdispl,
                                  const size_type* __restrict__ mapdispl, const I* __restrict__ map,
                                  const size_type* __restrict__ warpdispl, const std::uint16_t* __restrict__ index,
                                  const V* __restrict__ values, const std::uint16_t* __restrict__ half_values,
                                  const V* __restrict__ b, size_type ldb, V* __restrict__ sums, size_type k) {
    TESSEL_DYNAMIC_SHARED(V, buf);
    const size_type block = blockIdx.x, j = blockIdx.y;
    const int lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size;
    const size_type warps = block_rows / warp_size;
    const size_type row = block * block_rows + threadIdx.x;
    const V x = row < rows ? b[row * ldb + j] : V(0);
    for (size_type s = buffdispl[block]; s < buffdispl[block + 1]; ++s) {
        const int staged = static_cast<int>(mapdispl[s + 1] - mapdispl[s]);
        for (int n = threadIdx.x; n < staged; n += blockDim.x) buf[n] = V(0);
        __syncthreads();
        const size_type* wd = warpdispl + s * warps + warp;
        for (size_type m = wd[0]; m < wd[1]; ++m) {
            const size_type e = m * warp_size + lane;
            const V v = half_values ? V(__half2float(__ushort_as_half(half_values[e]))) : values[e];
            if (v != V(0)) atomicAdd(buf + index[e], v * x);
        }
        __syncthreads();
        const I* stage_map = map + mapdispl[s];
        for (int n = threadIdx.x; n < staged; n += blockDim.x)
            if (buf[n] != V(0)) atomicAdd(sums + static_cast<size_type>(stage_map[n]) * k + j, buf[n]);
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
    const size_type shared = a.max_stage_entries() * static_cast<size_type>(sizeof(V));
    auto* kernel = transposed_kernel<V, I>;
    if (shared > limits.shared_per_block_optin)
        TESSEL_THROW(CudaError, "cuda::spmm_tiled_ell_transposed: a stage of " + std::to_string(a.max_stage_entries()) +
                                    " entries needs " + std::to_string(shared) + " bytes of shared memory, " +
                                    detail::current_device_name() + " allows " +
                                    std::to_string(limits.shared_per_block_optin));
    if (shared > limits.shared_per_block)
        TESSEL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(limits.shared_per_block_optin)));
    detail::StreamScratch scratch(static_cast<std::size_t>(c.rows * k) * sizeof(V), stream);
    V* sums = static_cast<V*>(scratch.get());
    TESSEL_CUDA_CHECK(cudaMemsetAsync(sums, 0, static_cast<std::size_t>(c.rows * k) * sizeof(V), stream));
    constexpr size_type max_grid_y = 65535;
    for (size_type j0 = 0; j0 < k && a.num_blocks() > 0; j0 += max_grid_y) {
        const dim3 grid(static_cast<unsigned>(a.num_blocks()), static_cast<unsigned>(std::min(max_grid_y, k - j0)));
        TESSEL_LAUNCH(grid, static_cast<unsigned>(a.block_rows()), static_cast<std::size_t>(shared), stream, transposed_kernel<V, I>)(
            a.rows(), a.block_rows(), a.buffdispl(), a.mapdispl(), a.map(), a.warpdispl(), a.index(), a.values(),
            a.half_values(), b.data + j0, b.ld, sums + j0, k);
        TESSEL_CUDA_CHECK_LAUNCH();
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
