// Built-in sparse matrices for tests and benchmarks (all deterministic for a seed).
#pragma once

#include <cstdint>
#include <random>

#include "core/dense.hpp"
#include "core/formats/csr.hpp"

namespace tessel::generate {

/// 5-point Laplacian on an n x n grid (n² rows, values 4 and -1).
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> stencil_2d(size_type n);

/// rows x cols with `per_row` distinct uniformly random columns per row, values in [-1, 1).
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> random_uniform(size_type rows, size_type cols, size_type per_row,
                                         std::uint64_t seed = 1);

/// Power-law row lengths (Zipf-like with exponent `alpha`, mean about `mean_per_row`),
/// columns uniform; row 0 is made very long (min(cols, 64·mean) entries).
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> power_law(size_type rows, size_type cols, double mean_per_row,
                                    double alpha = 2.0, std::uint64_t seed = 1);

/// n x n band matrix with half-bandwidth `half_width` (2·half_width + 1 diagonals).
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> banded(size_type n, size_type half_width);

/// Random matrix with `empty_fraction` of rows left empty, otherwise like random_uniform
/// with per-row lengths uniform in [1, 2·mean]. Used to exercise kernel edge cases.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> random_with_empty_rows(size_type rows, size_type cols, size_type mean,
                                                 double empty_fraction, std::uint64_t seed = 1);

/// Dense matrix with entries uniform in [-1, 1).
template <typename ValueType>
DenseMatrix<ValueType> random_dense(size_type rows, size_type cols,
                                    Layout layout = Layout::row_major, std::uint64_t seed = 1);

}  // namespace tessel::generate
