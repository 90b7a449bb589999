// cuda column passes of sparse DNN inference (the cpu twins: core/cpu/column_compaction.cpp):
// one thread per column (scatter; live marks per strip of 64 rows) or per entry (gather).
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/error.hpp"
#include "core/kernels/column_compaction.hpp"

namespace tessel::cuda::device {

namespace {

constexpr int threads_per_block = 256;
constexpr long long rows_per_strip = 64;
constexpr long long max_grid_y = 65535;

// b(col[e], j) = val[e] (without values: `value`) for the entries of row j.
template <typename V>
__global__ void scatter_images_kernel(const std::int64_t* row_ptr, const std::int32_t* col, const V* val, V value,
                                      long long k, long long ldb, V* b) {
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= k) return;
    for (long long e = row_ptr[j]; e < row_ptr[j + 1]; ++e) b[(long long)col[e] * ldb + j] = val ? val[e] : value;
}

// b(i, j) = value where bit offset + j of bits row i is set, else 0: a thread per column j
// (the 32 threads of a word read it together and write 32 consecutive values), block rows
// striding over the rows (no division per entry).
template <typename V>
__global__ void expand_bits_kernel(const std::uint32_t* bits, long long words_ld, long long offset, V value,
                                   long long rows, long long k, long long ldb, V* b) {
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= k) return;
    const long long word = (offset + j) / 32;
    const unsigned bit = static_cast<unsigned>((offset + j) % 32);
    for (long long i = blockIdx.y; i < rows; i += gridDim.y)
        b[i * ldb + j] = (bits[i * words_ld + word] >> bit) & 1u ? value : V(0);
}

// live[j] = 1 when column j of c has a nonzero in one of the strips of rows this block row scans.
template <typename V>
__global__ void mark_live_columns_kernel(const V* c, long long rows, long long k, long long ldc, int* live) {
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= k) return;
    for (long long r0 = blockIdx.y * rows_per_strip; r0 < rows; r0 += gridDim.y * rows_per_strip) {
        const long long r1 = r0 + rows_per_strip < rows ? r0 + rows_per_strip : rows;
        for (long long r = r0; r < r1; ++r)
            if (c[r * ldc + j] != V(0)) {
                live[j] = 1;  // every writer writes the same value
                return;
            }
    }
}

// b (rows x k_new) := the columns keep[0 .. k_new) of c.
template <typename V>
__global__ void gather_columns_kernel(const V* c, long long ldc, long long rows, const std::int64_t* keep, long long k_new,
                               V* b, long long ldb) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < rows * k_new; e += stride) {
        const long long r = e / k_new, j = e % k_new;
        b[r * ldb + j] = c[r * ldc + keep[j]];
    }
}

unsigned blocks_for(long long work) {
    return static_cast<unsigned>((work + threads_per_block - 1) / threads_per_block);
}

void check_row_major(Layout a, Layout b, const char* what) {
    TESSEL_ENSURE_DIMS(a == Layout::row_major && b == Layout::row_major, std::string(what) + ": must be row-major");
}

}  // namespace

template <typename V>
void scatter_rows_as_columns(const std::int64_t* row_ptr, const std::int32_t* col, const V* val, DenseView<V> b,
                             cudaStream_t stream) {
    check_row_major(b.layout, Layout::row_major, "cuda::device::scatter_rows_as_columns");
    if (b.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(b.cols), threads_per_block, 0, stream, scatter_images_kernel<V>)(row_ptr, col, val, V(0),
                                                                                              b.cols, b.ld, b.data);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void scatter_pattern_as_columns(const std::int64_t* row_ptr, const std::int32_t* col, V value, DenseView<V> b,
                                cudaStream_t stream) {
    check_row_major(b.layout, Layout::row_major, "cuda::device::scatter_pattern_as_columns");
    if (b.cols == 0) return;
    TESSEL_LAUNCH(blocks_for(b.cols), threads_per_block, 0, stream, scatter_images_kernel<V>)(row_ptr, col, nullptr,
                                                                                              value, b.cols, b.ld, b.data);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void expand_bits_as_columns(const std::uint32_t* bits, size_type words_ld, size_type offset, V value, DenseView<V> b,
                            cudaStream_t stream) {
    check_row_major(b.layout, Layout::row_major, "cuda::device::expand_bits_as_columns");
    if (b.rows == 0 || b.cols == 0) return;
    const dim3 grid(blocks_for(b.cols), static_cast<unsigned>(std::min<long long>(b.rows, max_grid_y)));
    TESSEL_LAUNCH(grid, threads_per_block, 0, stream, expand_bits_kernel<V>)(bits, words_ld, offset, value, b.rows,
                                                                              b.cols, b.ld, b.data);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void mark_live_columns(DenseView<const V> c, int* live, cudaStream_t stream) {
    check_row_major(c.layout, Layout::row_major, "cuda::device::mark_live_columns");
    if (c.cols == 0 || c.rows == 0) return;
    const long long strips = (c.rows + rows_per_strip - 1) / rows_per_strip;
    const dim3 grid(blocks_for(c.cols), static_cast<unsigned>(strips < max_grid_y ? strips : max_grid_y));
    TESSEL_LAUNCH(grid, threads_per_block, 0, stream, mark_live_columns_kernel<V>)(c.data, c.rows, c.cols, c.ld, live);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void gather_columns(DenseView<const V> c, const std::int64_t* keep, DenseView<V> b, cudaStream_t stream) {
    check_row_major(c.layout, b.layout, "cuda::device::gather_columns");
    TESSEL_ENSURE_DIMS(b.rows == c.rows, "cuda::device::gather_columns: " + std::to_string(b.rows) + " rows into " +
                                             std::to_string(c.rows));
    if (b.rows == 0 || b.cols == 0) return;
    // A grid-stride loop: a few waves of blocks are enough for a copy.
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(blocks_for(b.rows * b.cols), 65536));
    TESSEL_LAUNCH(blocks, threads_per_block, 0, stream, gather_columns_kernel<V>)(c.data, c.ld, c.rows, keep, b.cols, b.data,
                                                                           b.ld);
    TESSEL_CUDA_CHECK_LAUNCH();
}

#define TESSEL_INSTANTIATE(V)                                                                                       \
    template void scatter_rows_as_columns(const std::int64_t*, const std::int32_t*, const V*, DenseView<V>,       \
                                          cudaStream_t);                                                          \
    template void scatter_pattern_as_columns(const std::int64_t*, const std::int32_t*, V, DenseView<V>, cudaStream_t); \
    template void expand_bits_as_columns(const std::uint32_t*, size_type, size_type, V, DenseView<V>, cudaStream_t);   \
    template void mark_live_columns(DenseView<const V>, int*, cudaStream_t);                                       \
    template void gather_columns(DenseView<const V>, const std::int64_t*, DenseView<V>, cudaStream_t);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda::device
