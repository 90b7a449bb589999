// Column blocks of row-major matrices side by side: xct's turned pair of projections runs one
// product on [x | x turned] (2k columns) and splits its 2k-column result into the two halves'
// rays, or sums the two blocks back onto the pixels. Either block's rows may be taken through a
// row list (a permutation: the quarter turn). One pass each instead of a copy per block and a
// permuted copy between. cpu and cuda twins (tests/core/test_column_blocks.cpp).
#pragma once

#include <string>

#include "core/dense.hpp"
#include "core/error.hpp"
#include "core/types.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace tessel {

namespace cpu {

/// out(i, 0 .. left.cols) := left(left_rows[i], :) and out(i, left.cols .. out.cols) :=
/// right(right_rows[i], :) for i < out.rows; a null row list takes row i itself. Every row
/// list entry must be a row of its block. Throws DimensionMismatch (shapes, layouts).
template <typename ValueType>
void join_column_blocks(DenseView<const ValueType> left, const size_type* left_rows, DenseView<const ValueType> right,
                        const size_type* right_rows, DenseView<ValueType> out);

/// left := in(:, 0 .. left.cols), right := in(:, left.cols .. in.cols). Throws DimensionMismatch.
template <typename ValueType>
void split_column_blocks(DenseView<const ValueType> in, DenseView<ValueType> left, DenseView<ValueType> right);

/// out(i, :) := in(i, 0 .. k) + in(right_rows[i], k .. 2k) for i < out.rows, k = out.cols
/// (one addition per value). Throws DimensionMismatch.
template <typename ValueType>
void add_column_blocks(DenseView<const ValueType> in, const size_type* right_rows, DenseView<ValueType> out);

}  // namespace cpu

#if defined(TESSEL_HAVE_CUDA)
namespace cuda::device {

/// The cpu functions of the same names on device arrays (row lists too), enqueued on `stream`.
/// Throw DimensionMismatch, CudaError.
template <typename ValueType>
void join_column_blocks(DenseView<const ValueType> left, const size_type* left_rows, DenseView<const ValueType> right,
                        const size_type* right_rows, DenseView<ValueType> out, cudaStream_t stream);
template <typename ValueType>
void split_column_blocks(DenseView<const ValueType> in, DenseView<ValueType> left, DenseView<ValueType> right,
                         cudaStream_t stream);
template <typename ValueType>
void add_column_blocks(DenseView<const ValueType> in, const size_type* right_rows, DenseView<ValueType> out,
                       cudaStream_t stream);

}  // namespace cuda::device
#endif

namespace column {

/// Throws DimensionMismatch naming `who` unless every view is row-major, wide.cols =
/// left.cols + right.cols, and the rows agree: those of a block without a row list are wide's.
template <typename V, typename W>
void check_column_blocks(const char* who, const DenseView<V>& wide, const DenseView<W>& left, bool left_listed,
                         const DenseView<W>& right, bool right_listed) {
    const bool rows_agree = (left_listed || left.rows == wide.rows) && (right_listed || right.rows == wide.rows) &&
                            (wide.rows == 0 || (left.rows > 0 && right.rows > 0));
    TESSEL_ENSURE_DIMS(wide.layout == Layout::row_major && left.layout == Layout::row_major &&
                           right.layout == Layout::row_major && wide.cols == left.cols + right.cols && rows_agree,
                       std::string(who) + ": blocks of " + std::to_string(left.rows) + "x" + std::to_string(left.cols) +
                           " and " + std::to_string(right.rows) + "x" + std::to_string(right.cols) + " beside " +
                           std::to_string(wide.rows) + "x" + std::to_string(wide.cols) + " (all row-major)");
}

}  // namespace column

}  // namespace tessel
