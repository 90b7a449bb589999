// Row gather and row-sum kernels for exchanges of device-resident partial results.
#include <string>

#include "core/cuda/kernels/row_sums.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/error.hpp"

namespace tessel::cuda::device {

namespace {

// A block is 32 columns x 8 rows; grid.x runs over rows (up to 2^31 - 1 blocks), grid.y over
// column tiles of 32 (w / 32 stays far below the 65535 limit for any exchange width).
constexpr int tile_cols = 32;
constexpr int tile_rows = 8;

dim3 row_grid(size_type rows, size_type cols) {
    return dim3(static_cast<unsigned>((rows + tile_rows - 1) / tile_rows),
                static_cast<unsigned>((cols + tile_cols - 1) / tile_cols));
}

template <typename V>
__global__ void gather_rows_kernel(const V* __restrict__ in, size_type ld_in,
                                   const size_type* __restrict__ rows, size_type count,
                                   size_type w, V* __restrict__ packed) {
    const size_type e = size_type(blockIdx.x) * tile_rows + threadIdx.y;
    const size_type j = size_type(blockIdx.y) * tile_cols + threadIdx.x;
    if (e < count && j < w) packed[e * w + j] = in[rows[e] * ld_in + j];
}

template <typename V>
__global__ void add_row_sums_kernel(const V* __restrict__ in, size_type ld_in,
                                    const size_type* __restrict__ rows,
                                    const size_type* __restrict__ ptr,
                                    const size_type* __restrict__ sources, size_type targets,
                                    size_type w, V* __restrict__ out, size_type ld_out) {
    const size_type t = size_type(blockIdx.x) * tile_rows + threadIdx.y;
    const size_type j = size_type(blockIdx.y) * tile_cols + threadIdx.x;
    if (t >= targets || j >= w) return;
    V* dst = out + rows[t] * ld_out + j;
    V sum = *dst;
    for (size_type e = ptr[t]; e < ptr[t + 1]; ++e) sum += in[sources[e] * ld_in + j];
    *dst = sum;
}

void check_row_major(Layout a, Layout b, const char* what) {
    TESSEL_ENSURE_DIMS(a == Layout::row_major && b == Layout::row_major,
                       std::string(what) + ": buffers must be row-major");
}

}  // namespace

template <typename V>
void gather_rows(RowsView<V> in, const size_type* rows, size_type count, V* packed,
                 cudaStream_t stream) {
    check_row_major(in.layout, Layout::row_major, "cuda::device::gather_rows");
    if (count == 0 || in.cols == 0) return;
    TESSEL_LAUNCH(row_grid(count, in.cols), dim3(tile_cols, tile_rows), 0, stream, gather_rows_kernel<V>)(
        in.data, in.ld, rows, count, in.cols, packed);
    TESSEL_CUDA_CHECK(cudaGetLastError());
}

template <typename V>
void add_row_sums(RowsView<V> in, const size_type* rows, const size_type* ptr,
                  const size_type* sources, size_type targets, DenseView<V> out,
                  cudaStream_t stream) {
    check_row_major(in.layout, out.layout, "cuda::device::add_row_sums");
    TESSEL_ENSURE_DIMS(in.cols == out.cols, "cuda::device::add_row_sums: widths " +
                                                std::to_string(in.cols) + " and " +
                                                std::to_string(out.cols) + " differ");
    if (targets == 0 || out.cols == 0) return;
    TESSEL_LAUNCH(row_grid(targets, out.cols), dim3(tile_cols, tile_rows), 0, stream, add_row_sums_kernel<V>)(
        in.data, in.ld, rows, ptr, sources, targets, out.cols, out.data, out.ld);
    TESSEL_CUDA_CHECK(cudaGetLastError());
}

template <typename V>
void fill_zero(DenseView<V> out, cudaStream_t stream) {
    check_row_major(out.layout, Layout::row_major, "cuda::device::fill_zero");
    if (out.rows == 0 || out.cols == 0) return;
    TESSEL_CUDA_CHECK(cudaMemset2DAsync(out.data, out.ld * sizeof(V), 0, out.cols * sizeof(V),
                                        out.rows, stream));
}

template void gather_rows(DenseView<const float>, const size_type*, size_type, float*, cudaStream_t);
template void gather_rows(DenseView<const double>, const size_type*, size_type, double*, cudaStream_t);
template void add_row_sums(DenseView<const float>, const size_type*, const size_type*,
                           const size_type*, size_type, DenseView<float>, cudaStream_t);
template void add_row_sums(DenseView<const double>, const size_type*, const size_type*,
                           const size_type*, size_type, DenseView<double>, cudaStream_t);
template void fill_zero(DenseView<float>, cudaStream_t);
template void fill_zero(DenseView<double>, cudaStream_t);

}  // namespace tessel::cuda::device
