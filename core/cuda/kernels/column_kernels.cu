// cuda column kernels of iterative solvers (the cpu twins: core/cpu/column_kernels.cpp): entry
// kernels over rows x k with a grid-stride loop, dots as per-block partial sums of 1024 rows then
// the blocks in order, and the per-column scalar steps one thread per column.
#include <cmath>
#include <string>

#include "core/cuda/kernels/grid_stride.hpp"
#include "core/cuda/kernels/spmm_launch.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/error.hpp"
#include "core/kernels/column_kernels.hpp"

namespace tessel::cuda::device {

namespace {

constexpr int threads_per_block = 256;
constexpr long long rows_per_partial = 1024;
constexpr int dot_lanes = 32;  // columns per block of the dot kernel
constexpr int dot_rows = 8;    // rows a block reads at once

unsigned blocks_for(long long work) { return detail::grid_stride_blocks(work, threads_per_block); }

// partial[blockIdx.x·k + j] := Σ a(i,j)·b(i,j) over the block's 1024 rows.
template <typename V>
__global__ void dot_partials_kernel(const V* a, long long lda, const V* b, long long ldb, long long rows, long long k,
                                    double* partial) {
    TESSEL_SHARED_ARRAY(double, sums, dot_rows * dot_lanes);
    const long long j = blockIdx.y * (long long)dot_lanes + threadIdx.x;
    const long long first = blockIdx.x * rows_per_partial;
    const long long last = first + rows_per_partial < rows ? first + rows_per_partial : rows;
    // Four independent sums: four loads in flight per thread instead of one.
    double acc = 0.0;
    if (j < k) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        long long i = first + threadIdx.y;
        for (; i + 3 * dot_rows < last; i += 4 * dot_rows) {
            s0 += double(a[i * lda + j]) * double(b[i * ldb + j]);
            s1 += double(a[(i + dot_rows) * lda + j]) * double(b[(i + dot_rows) * ldb + j]);
            s2 += double(a[(i + 2 * dot_rows) * lda + j]) * double(b[(i + 2 * dot_rows) * ldb + j]);
            s3 += double(a[(i + 3 * dot_rows) * lda + j]) * double(b[(i + 3 * dot_rows) * ldb + j]);
        }
        for (; i < last; i += dot_rows) s0 += double(a[i * lda + j]) * double(b[i * ldb + j]);
        acc = (s0 + s1) + (s2 + s3);
    }
    sums[threadIdx.y * dot_lanes + threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && j < k) {
        double total = 0.0;
        for (int r = 0; r < dot_rows; ++r) total += sums[r * dot_lanes + threadIdx.x];
        partial[blockIdx.x * k + j] = total;
    }
}

// out[j] := Σ_blocks partial[blk·k + j], in block order.
__global__ void dot_finish_kernel(const double* partial, long long blocks, long long k, double* out) {
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= k) return;
    double total = 0.0;
    for (long long blk = 0; blk < blocks; ++blk) total += partial[blk * k + j];
    out[j] = total;
}

template <typename V>
__global__ void axpy_kernel(V* y, long long ldy, const double* alpha, double sign, const V* x, long long ldx,
                            long long rows, long long k) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k; e += stride) {
        const long long i = e / k, j = e % k;
        y[i * ldy + j] += V(sign * alpha[j]) * x[i * ldx + j];
    }
}

template <typename V>
__global__ void xpay_kernel(V* p, long long ldp, const double* beta, const V* s, long long lds, const double* mask,
                            long long rows, long long k) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k; e += stride) {
        const long long i = e / k, j = e % k;
        if (mask[j] != 0) p[i * ldp + j] = s[i * lds + j] + V(beta[j]) * p[i * ldp + j];
    }
}

template <typename V>
__global__ void scale_rows_kernel(const V* r, long long ldr, const V* weight, V* q, long long ldq, long long rows,
                                  long long k) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k; e += stride) {
        const long long i = e / k, j = e % k;
        q[i * ldq + j] = weight[i] * r[i * ldr + j];
    }
}

template <typename V>
__global__ void weighted_update_kernel(V* x, long long ldx, const V* weight, const V* s, long long lds,
                                       const double* mask, bool nonneg, long long rows, long long k) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k; e += stride) {
        const long long i = e / k, j = e % k;
        if (mask[j] == 0) continue;
        const V v = x[i * ldx + j] + weight[i] * s[i * lds + j];
        x[i * ldx + j] = nonneg && v < V(0) ? V(0) : v;
    }
}

template <typename V>
__global__ void residual_kernel(V* r, long long ldr, const V* b, long long ldb, const V* q, long long ldq,
                                const double* mask, long long rows, long long k) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k; e += stride) {
        const long long i = e / k, j = e % k;
        if (mask[j] != 0) r[i * ldr + j] = b[i * ldb + j] - q[i * ldq + j];
    }
}

template <typename V>
__global__ void copy_kernel(const V* src, long long lds, V* dst, long long ldd, long long rows, long long k) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k; e += stride) {
        const long long i = e / k, j = e % k;
        dst[i * ldd + j] = src[i * lds + j];
    }
}

// The scalar steps, one thread per column, as in core/cpu/column_kernels.cpp.
__global__ void cgls_step_sizes_kernel(double* s, long long k) {
    using namespace column;
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= k) return;
    s[alpha * k + j] = 0.0;
    if (s[active * k + j] == 0) return;
    if (!(s[delta * k + j] > 0)) {
        s[active * k + j] = 0;
        return;
    }
    s[alpha * k + j] = s[gamma_norm * k + j] / s[delta * k + j];
}

__global__ void cgls_directions_kernel(double* s, long long k) {
    using namespace column;
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= k) return;
    s[beta * k + j] = 0.0;
    s[update * k + j] = 0.0;
    if (s[active * k + j] == 0) return;
    s[beta * k + j] = s[ss * k + j] / s[gamma_norm * k + j];
    s[gamma_norm * k + j] = s[ss * k + j];
    s[update * k + j] = 1.0;
}

__global__ void record_residuals_kernel(double* s, long long k, double tol, bool stop_at_zero_gamma) {
    using namespace column;
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= k) return;
    if (s[active * k + j] == 0) {
        s[residual * k + j] = -1.0;
        return;
    }
    const double res = sqrt(s[rr * k + j]) / s[bnorm * k + j];
    s[residual * k + j] = res;
    if ((tol > 0 && res < tol) || (stop_at_zero_gamma && s[gamma_norm * k + j] == 0)) s[active * k + j] = 0;
}

}  // namespace

template <typename V>
void column_dots(DenseView<const V> a, DenseView<const V> b, double* out, cudaStream_t stream) {
    column::check_same_shape("column_dots", a, b);
    const long long rows = a.rows, k = a.cols;
    if (k == 0) return;
    const long long blocks = rows > 0 ? (rows + rows_per_partial - 1) / rows_per_partial : 0;
    detail::StreamScratch partial(static_cast<std::size_t>(blocks * k) * sizeof(double), stream);
    auto* partial_sums = static_cast<double*>(partial.get());
    if (blocks > 0) {
        const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>((k + dot_lanes - 1) / dot_lanes));
        TESSEL_LAUNCH(grid, dim3(dot_lanes, dot_rows), 0, stream, dot_partials_kernel<V>)(a.data, a.ld, b.data, b.ld,
                                                                                          rows, k, partial_sums);
        TESSEL_CUDA_CHECK_LAUNCH();
    }
    TESSEL_LAUNCH(blocks_for(k), threads_per_block, 0, stream, dot_finish_kernel)(partial_sums, blocks, k, out);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void axpy_columns(DenseView<V> y, const double* alpha, double sign, DenseView<const V> x, cudaStream_t stream) {
    column::check_same_shape("axpy_columns", y, x);
    if (y.rows * y.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(y.rows * y.cols), threads_per_block, 0, stream, axpy_kernel<V>)(
        y.data, y.ld, alpha, sign, x.data, x.ld, y.rows, y.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void xpay_columns(DenseView<V> p, const double* beta, DenseView<const V> s, const double* mask, cudaStream_t stream) {
    column::check_same_shape("xpay_columns", p, s);
    if (p.rows * p.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(p.rows * p.cols), threads_per_block, 0, stream, xpay_kernel<V>)(
        p.data, p.ld, beta, s.data, s.ld, mask, p.rows, p.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void scale_rows(DenseView<const V> r, const V* weight, DenseView<V> q, cudaStream_t stream) {
    column::check_same_shape("scale_rows", r, q);
    if (r.rows * r.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(r.rows * r.cols), threads_per_block, 0, stream, scale_rows_kernel<V>)(
        r.data, r.ld, weight, q.data, q.ld, r.rows, r.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void weighted_update(DenseView<V> x, const V* weight, DenseView<const V> s, const double* mask, bool nonneg,
                     cudaStream_t stream) {
    column::check_same_shape("weighted_update", x, s);
    if (x.rows * x.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(x.rows * x.cols), threads_per_block, 0, stream, weighted_update_kernel<V>)(
        x.data, x.ld, weight, s.data, s.ld, mask, nonneg, x.rows, x.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void residual_columns(DenseView<V> r, DenseView<const V> b, DenseView<const V> q, const double* mask,
                      cudaStream_t stream) {
    column::check_same_shape("residual_columns", r, b);
    column::check_same_shape("residual_columns", r, q);
    if (r.rows * r.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(r.rows * r.cols), threads_per_block, 0, stream, residual_kernel<V>)(
        r.data, r.ld, b.data, b.ld, q.data, q.ld, mask, r.rows, r.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void copy_columns(DenseView<const V> src, DenseView<V> dst, cudaStream_t stream) {
    column::check_same_shape("copy_columns", src, dst);
    if (src.rows * src.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(src.rows * src.cols), threads_per_block, 0, stream, copy_kernel<V>)(
        src.data, src.ld, dst.data, dst.ld, src.rows, src.cols);
    TESSEL_CUDA_CHECK_LAUNCH();
}

void cgls_step_sizes(double* scalars, size_type k, cudaStream_t stream) {
    if (k == 0) return;
    TESSEL_LAUNCH(blocks_for(k), threads_per_block, 0, stream, cgls_step_sizes_kernel)(scalars, k);
    TESSEL_CUDA_CHECK_LAUNCH();
}

void cgls_directions(double* scalars, size_type k, cudaStream_t stream) {
    if (k == 0) return;
    TESSEL_LAUNCH(blocks_for(k), threads_per_block, 0, stream, cgls_directions_kernel)(scalars, k);
    TESSEL_CUDA_CHECK_LAUNCH();
}

void record_residuals(double* scalars, size_type k, double tol, bool stop_at_zero_gamma, cudaStream_t stream) {
    if (k == 0) return;
    TESSEL_LAUNCH(blocks_for(k), threads_per_block, 0, stream, record_residuals_kernel)(scalars, k, tol,
                                                                                        stop_at_zero_gamma);
    TESSEL_CUDA_CHECK_LAUNCH();
}

#define TESSEL_INSTANTIATE(V)                                                                                        \
    template void column_dots(DenseView<const V>, DenseView<const V>, double*, cudaStream_t);                        \
    template void axpy_columns(DenseView<V>, const double*, double, DenseView<const V>, cudaStream_t);               \
    template void xpay_columns(DenseView<V>, const double*, DenseView<const V>, const double*, cudaStream_t);        \
    template void scale_rows(DenseView<const V>, const V*, DenseView<V>, cudaStream_t);                              \
    template void weighted_update(DenseView<V>, const V*, DenseView<const V>, const double*, bool, cudaStream_t);   \
    template void residual_columns(DenseView<V>, DenseView<const V>, DenseView<const V>, const double*, cudaStream_t); \
    template void copy_columns(DenseView<const V>, DenseView<V>, cudaStream_t);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda::device
