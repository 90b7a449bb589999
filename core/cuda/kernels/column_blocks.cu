// Column blocks side by side on the device (the cpu twins: core/cpu/column_blocks.cpp): one
// grid-stride pass over the wide matrix's values each, a value per thread.
#include "core/cuda/kernels/grid_stride.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/kernels/column_blocks.hpp"

namespace tessel::cuda::device {

namespace {

constexpr int threads_per_block = 256;

unsigned blocks_for(long long work) { return detail::grid_stride_blocks(work, threads_per_block); }

// out(i, j) := left(lrows[i], j) for j < kl, right(rrows[i], j - kl) after (null: row i).
template <typename V>
__global__ void join_kernel(const V* left, long long ldl, const size_type* lrows, const V* right, long long ldr,
                            const size_type* rrows, V* out, long long ldo, long long rows, long long kl,
                            long long kr) {
    const long long w = kl + kr, stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * w; e += stride) {
        const long long i = e / w, j = e % w;
        out[i * ldo + j] = j < kl ? left[(lrows ? lrows[i] : i) * ldl + j] : right[(rrows ? rrows[i] : i) * ldr + j - kl];
    }
}

template <typename V>
__global__ void split_kernel(const V* in, long long ldi, V* left, long long ldl, V* right, long long ldr,
                             long long rows, long long kl, long long kr) {
    const long long w = kl + kr, stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * w; e += stride) {
        const long long i = e / w, j = e % w;
        const V v = in[i * ldi + j];
        if (j < kl)
            left[i * ldl + j] = v;
        else
            right[i * ldr + j - kl] = v;
    }
}

template <typename V>
__global__ void add_kernel(const V* in, long long ldi, const size_type* rrows, V* out, long long ldo, long long rows,
                           long long k) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k; e += stride) {
        const long long i = e / k, j = e % k;
        out[i * ldo + j] = in[i * ldi + j] + in[rrows[i] * ldi + k + j];
    }
}

}  // namespace

template <typename V>
void join_column_blocks(DenseView<const V> left, const size_type* left_rows, DenseView<const V> right,
                        const size_type* right_rows, DenseView<V> out, cudaStream_t stream) {
    column::check_column_blocks("join_column_blocks", out, left, left_rows != nullptr, right, right_rows != nullptr);
    if (out.rows * out.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(out.rows * out.cols), threads_per_block, 0, stream, join_kernel<V>)(
        left.data, left.ld, left_rows, right.data, right.ld, right_rows, out.data, out.ld, out.rows, left.cols,
        right.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void split_column_blocks(DenseView<const V> in, DenseView<V> left, DenseView<V> right, cudaStream_t stream) {
    column::check_column_blocks("split_column_blocks", in, left, false, right, false);
    if (in.rows * in.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(in.rows * in.cols), threads_per_block, 0, stream, split_kernel<V>)(
        in.data, in.ld, left.data, left.ld, right.data, right.ld, in.rows, left.cols, right.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void add_column_blocks(DenseView<const V> in, const size_type* right_rows, DenseView<V> out, cudaStream_t stream) {
    column::check_column_blocks("add_column_blocks", in, out, false, out, true);
    if (out.rows * out.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(out.rows * out.cols), threads_per_block, 0, stream, add_kernel<V>)(
        in.data, in.ld, right_rows, out.data, out.ld, out.rows, out.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

#define TESSEL_INSTANTIATE(V)                                                                                      \
    template void join_column_blocks(DenseView<const V>, const size_type*, DenseView<const V>, const size_type*,   \
                                     DenseView<V>, cudaStream_t);                                                  \
    template void split_column_blocks(DenseView<const V>, DenseView<V>, DenseView<V>, cudaStream_t);               \
    template void add_column_blocks(DenseView<const V>, const size_type*, DenseView<V>, cudaStream_t);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda::device
