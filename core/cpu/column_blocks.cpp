// Column blocks side by side on the host (core/kernels/column_blocks.hpp): OpenMP over rows,
// each row's blocks copied (or summed) whole.
#include "core/kernels/column_blocks.hpp"

#include <algorithm>

namespace tessel::cpu {

template <typename V>
void join_column_blocks(DenseView<const V> left, const size_type* left_rows, DenseView<const V> right,
                        const size_type* right_rows, DenseView<V> out) {
    column::check_column_blocks("join_column_blocks", out, left, left_rows != nullptr, right, right_rows != nullptr);
    const size_type kl = left.cols, kr = right.cols;
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < out.rows; ++i) {
        V* row = out.data + i * out.ld;
        std::copy_n(left.data + (left_rows ? left_rows[i] : i) * left.ld, kl, row);
        std::copy_n(right.data + (right_rows ? right_rows[i] : i) * right.ld, kr, row + kl);
    }
}

template <typename V>
void split_column_blocks(DenseView<const V> in, DenseView<V> left, DenseView<V> right) {
    column::check_column_blocks("split_column_blocks", in, left, false, right, false);
    const size_type kl = left.cols, kr = right.cols;
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < in.rows; ++i) {
        const V* row = in.data + i * in.ld;
        std::copy_n(row, kl, left.data + i * left.ld);
        std::copy_n(row + kl, kr, right.data + i * right.ld);
    }
}

template <typename V>
void add_column_blocks(DenseView<const V> in, const size_type* right_rows, DenseView<V> out) {
    column::check_column_blocks("add_column_blocks", in, out, false, out, true);
    const size_type k = out.cols;
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < out.rows; ++i) {
        const V* own = in.data + i * in.ld;
        const V* other = in.data + right_rows[i] * in.ld + k;
        V* row = out.data + i * out.ld;
        for (size_type j = 0; j < k; ++j) row[j] = own[j] + other[j];
    }
}

#define TESSEL_INSTANTIATE(V)                                                                                      \
    template void join_column_blocks(DenseView<const V>, const size_type*, DenseView<const V>, const size_type*,   \
                                     DenseView<V>);                                                                \
    template void split_column_blocks(DenseView<const V>, DenseView<V>, DenseView<V>);                             \
    template void add_column_blocks(DenseView<const V>, const size_type*, DenseView<V>);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cpu
