// Column-wise helpers of the xct driver on rows x K row-major matrices (K slices), over core's
// cpu column kernels (core/kernels/column_kernels.hpp).
#pragma once

#include <algorithm>
#include <vector>

#include "core/dense.hpp"
#include "core/kernels/column_kernels.hpp"

namespace tessel::xct {

/// out[k] = Σ_i a(i,k)·b(i,k) in double, for the K columns (the same sums for any thread count).
template <typename V>
std::vector<double> column_dots(const DenseMatrix<V>& a, const DenseMatrix<V>& b) {
    std::vector<double> out(static_cast<std::size_t>(a.cols()), 0.0);
    cpu::column_dots(a.view(), b.view(), out.data());
    return out;
}

/// Copies a into b (same shape: b is resized when it differs).
template <typename V>
void copy_matrix(const DenseMatrix<V>& a, DenseMatrix<V>& b) {
    if (b.rows() != a.rows() || b.cols() != a.cols()) b = DenseMatrix<V>(a.rows(), a.cols());
    std::copy(a.data(), a.data() + a.size(), b.data());
}

}  // namespace tessel::xct
