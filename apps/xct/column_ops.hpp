// Column-wise vector operations of the solvers on rows x K row-major matrices (K slices):
// fp64 reductions in a fixed order (the same sums for any thread count), fp32/fp64 updates.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/dense.hpp"

namespace tessel::xct {

/// Rows per partial sum: the sums are combined in row-block order, whatever the threads.
inline constexpr size_type reduction_block = 1024;

/// out[k] = Σ_i a(i,k)·b(i,k) in double, for the K columns.
template <typename V>
std::vector<double> column_dots(const DenseMatrix<V>& a, const DenseMatrix<V>& b) {
    const size_type rows = a.rows(), k = a.cols();
    const size_type blocks = (rows + reduction_block - 1) / reduction_block;
    std::vector<double> partial(static_cast<std::size_t>(blocks * k), 0.0);
    const V* pa = a.data();
    const V* pb = b.data();
#pragma omp parallel for schedule(static)
    for (size_type blk = 0; blk < blocks; ++blk) {
        double* acc = partial.data() + blk * k;
        const size_type end = std::min(rows, (blk + 1) * reduction_block);
        for (size_type i = blk * reduction_block; i < end; ++i)
            for (size_type j = 0; j < k; ++j) acc[j] += double(pa[i * k + j]) * double(pb[i * k + j]);
    }
    std::vector<double> out(static_cast<std::size_t>(k), 0.0);
    for (size_type blk = 0; blk < blocks; ++blk)
        for (size_type j = 0; j < k; ++j) out[j] += partial[blk * k + j];
    return out;
}

/// y(:,k) += alpha[k]·x(:,k) for the columns with alpha[k] != 0.
template <typename V>
void axpy_columns(DenseMatrix<V>& y, const std::vector<double>& alpha, const DenseMatrix<V>& x) {
    const size_type rows = y.rows(), k = y.cols();
    std::vector<V> a(alpha.begin(), alpha.end());
    V* py = y.data();
    const V* px = x.data();
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rows; ++i)
        for (size_type j = 0; j < k; ++j) py[i * k + j] += a[j] * px[i * k + j];
}

/// p(:,k) := s(:,k) + beta[k]·p(:,k) for the columns where update[k].
template <typename V>
void xpay_columns(DenseMatrix<V>& p, const std::vector<double>& beta, const DenseMatrix<V>& s,
                  const std::vector<std::uint8_t>& update) {
    const size_type rows = p.rows(), k = p.cols();
    std::vector<V> b(beta.begin(), beta.end());
    V* pp = p.data();
    const V* ps = s.data();
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rows; ++i)
        for (size_type j = 0; j < k; ++j)
            if (update[j]) pp[i * k + j] = ps[i * k + j] + b[j] * pp[i * k + j];
}

/// Copies a into b (same shape: b is resized when it differs).
template <typename V>
void copy_matrix(const DenseMatrix<V>& a, DenseMatrix<V>& b) {
    if (b.rows() != a.rows() || b.cols() != a.cols()) b = DenseMatrix<V>(a.rows(), a.cols());
    std::copy(a.data(), a.data() + a.size(), b.data());
}

}  // namespace tessel::xct
