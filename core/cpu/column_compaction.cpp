// cpu column passes of sparse DNN inference: parallel over columns (scatter, live marks in
// strips of 256 columns so each thread's flags stay in cache) or rows (gather).
#include "core/kernels/column_compaction.hpp"

#include <algorithm>

namespace tessel::cpu {

template <typename V>
void scatter_rows_as_columns(const std::int64_t* row_ptr, const std::int32_t* col, const V* val, DenseView<V> b) {
#pragma omp parallel for schedule(static)
    for (size_type j = 0; j < b.cols; ++j)
        for (std::int64_t e = row_ptr[j]; e < row_ptr[j + 1]; ++e) b.data[size_type(col[e]) * b.ld + j] = val[e];
}

template <typename V>
void scatter_pattern_as_columns(const std::int64_t* row_ptr, const std::int32_t* col, V value, DenseView<V> b) {
#pragma omp parallel for schedule(static)
    for (size_type j = 0; j < b.cols; ++j)
        for (std::int64_t e = row_ptr[j]; e < row_ptr[j + 1]; ++e) b.data[size_type(col[e]) * b.ld + j] = value;
}

void pattern_bits(const std::int64_t* row_ptr, const std::int32_t* col, size_type rows, size_type cols,
                  std::uint32_t* bits) {
    const size_type words = pattern_words(rows);
    // A thread per word of rows: its 32 rows set bits in that word alone.
#pragma omp parallel for schedule(static)
    for (size_type w = 0; w < words; ++w) {
        for (size_type c = 0; c < cols; ++c) bits[c * words + w] = 0;
        for (size_type j = w * 32; j < std::min(rows, w * 32 + 32); ++j)
            for (std::int64_t e = row_ptr[j]; e < row_ptr[j + 1]; ++e)
                bits[size_type(col[e]) * words + w] |= std::uint32_t{1} << (j % 32);
    }
}

template <typename V>
void expand_bits_as_columns(const std::uint32_t* bits, size_type words_ld, size_type offset, V value, DenseView<V> b) {
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < b.rows; ++i)
        for (size_type j = 0; j < b.cols; ++j) {
            const size_type g = offset + j;
            b.data[i * b.ld + j] = (bits[i * words_ld + g / 32] >> (g % 32)) & 1u ? value : V(0);
        }
}

template <typename V>
void mark_live_columns(DenseView<const V> c, int* live) {
    constexpr size_type strip = 256;
#pragma omp parallel for schedule(static)
    for (size_type j0 = 0; j0 < c.cols; j0 += strip) {
        const size_type j1 = std::min(c.cols, j0 + strip);
        std::fill(live + j0, live + j1, 0);
        for (size_type i = 0; i < c.rows; ++i) {
            const V* row = c.data + i * c.ld;
            for (size_type j = j0; j < j1; ++j) live[j] |= row[j] != V(0);
        }
    }
}

template <typename V>
void gather_columns(DenseView<const V> c, const std::int64_t* keep, DenseView<V> b) {
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < c.rows; ++i)
        for (size_type j = 0; j < b.cols; ++j) b.data[i * b.ld + j] = c.data[i * c.ld + keep[j]];
}

#define TESSEL_INSTANTIATE(V)                                                                                   \
    template void scatter_rows_as_columns(const std::int64_t*, const std::int32_t*, const V*, DenseView<V>);   \
    template void scatter_pattern_as_columns(const std::int64_t*, const std::int32_t*, V, DenseView<V>);        \
    template void expand_bits_as_columns(const std::uint32_t*, size_type, size_type, V, DenseView<V>);         \
    template void mark_live_columns(DenseView<const V>, int*);                                                 \
    template void gather_columns(DenseView<const V>, const std::int64_t*, DenseView<V>);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cpu
