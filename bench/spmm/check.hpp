// Checking a kernel's C against a trusted C with a rounding-aware relative tolerance.
#pragma once

#include <string>
#include <vector>

#include "bench/spmm/kernels.hpp"

namespace tessel::bench {

/// Largest scaled error found and where. An entry passes when
///   |c_ij - t_ij| <= rtol · (|t_ij| + scale_i),  scale_i = (Σ_j |a_ij|) · max|B|,
/// which bounds the rounding of any summation order; NaN never passes.
struct CheckResult {
    bool ok = true;
    double max_error = 0;   // max over entries of |c - t| / (|t| + scale_i)
    size_type worst_row = -1;
    size_type worst_col = -1;
    size_type rows_checked = 0;
};

/// rtol for the value type: 1e-4 for float, 1e-10 for double.
template <typename V>
constexpr double check_tolerance() {
    return sizeof(V) == 4 ? 1e-4 : 1e-10;
}

/// Σ_j |a_ij| per row.
template <typename V>
std::vector<double> row_abs_sums(const Csr<V, Index>& a);

/// Compares rows `rows` (all rows when empty) of c against trusted. c_rows[r] is the row of
/// c holding matrix row rows[r] (identity when c_rows is empty).
template <typename V>
CheckResult compare(DenseView<const V> c, DenseView<const V> trusted,
                    const std::vector<double>& row_scale, double rtol);

/// The trusted C for one (A, B): the reference on small inputs, otherwise cpu row-split,
/// itself compared with the reference on a sample of rows (first, last, longest, random).
template <typename V>
struct Trusted {
    DenseMatrix<V> c;
    std::string source;           // "reference" or "row-split"
    CheckResult self_check;       // row-split vs reference on the sampled rows
    double seconds = 0;
};

template <typename V>
Trusted<V> compute_trusted(const Csr<V, Index>& a, DenseView<const V> b,
                           const std::vector<double>& row_scale, bool use_reference,
                           size_type sample_rows = 2000);

}  // namespace tessel::bench
