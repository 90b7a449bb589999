// Column passes over a row-major activation matrix whose columns are images (sparse DNN
// inference keeps Yᵀ, N x images): images scattered in as columns, the columns that are not
// all zero found, and the live ones gathered into a narrower matrix. cpu and cuda twins.
#pragma once

#include <cstdint>

#include "core/dense.hpp"
#include "core/types.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace tessel {

/// Words of 32 bits a row of cpu::pattern_bits takes for `rows` sparse rows.
inline size_type pattern_words(size_type rows) { return (rows + 31) / 32; }

namespace cpu {

/// B(:, j) := the sparse row j of (row_ptr, col, val), for j < B.cols; B's other entries are
/// left as they are (zero them first). B is row-major; col < B.rows.
template <typename ValueType>
void scatter_rows_as_columns(const std::int64_t* row_ptr, const std::int32_t* col, const ValueType* val,
                             DenseView<ValueType> b);

/// The same for a pattern whose entries all hold `value` (sparse DNN images of ones: no
/// values to read, or to send to a device).
template <typename ValueType>
void scatter_pattern_as_columns(const std::int64_t* row_ptr, const std::int32_t* col, ValueType value,
                                DenseView<ValueType> b);

/// The pattern of `rows` sparse rows (row_ptr, col; col < cols) as bits by column: bit j % 32 of
/// bits[c·pattern_words(rows) + j / 32] is set when row j has column c. Binary images denser
/// than one pixel in 32 take fewer bytes so than as column indices.
void pattern_bits(const std::int64_t* row_ptr, const std::int32_t* col, size_type rows, size_type cols,
                  std::uint32_t* bits);

/// B(i, j) := value where bit offset + j of bits row i (words_ld words apart) is set, else 0,
/// for every entry of B (row-major): rows of pattern_bits scattered as columns, from row
/// `offset` on.
template <typename ValueType>
void expand_bits_as_columns(const std::uint32_t* bits, size_type words_ld, size_type offset, ValueType value,
                            DenseView<ValueType> b);

/// live[j] := 1 when column j of C (row-major) has a nonzero, else 0.
template <typename ValueType>
void mark_live_columns(DenseView<const ValueType> c, int* live);

/// B := the columns keep[0 .. B.cols) of C (both row-major, B.rows == C.rows).
template <typename ValueType>
void gather_columns(DenseView<const ValueType> c, const std::int64_t* keep, DenseView<ValueType> b);

}  // namespace cpu

#if defined(TESSEL_HAVE_CUDA)
namespace cuda::device {

/// The cpu functions of the same names on device arrays, enqueued on `stream`. For
/// mark_live_columns, `live` must be zeroed first (blocks only set entries to 1).
template <typename ValueType>
void scatter_rows_as_columns(const std::int64_t* row_ptr, const std::int32_t* col, const ValueType* val,
                             DenseView<ValueType> b, cudaStream_t stream);
template <typename ValueType>
void scatter_pattern_as_columns(const std::int64_t* row_ptr, const std::int32_t* col, ValueType value,
                                DenseView<ValueType> b, cudaStream_t stream);
template <typename ValueType>
void expand_bits_as_columns(const std::uint32_t* bits, size_type words_ld, size_type offset, ValueType value,
                            DenseView<ValueType> b, cudaStream_t stream);
template <typename ValueType>
void mark_live_columns(DenseView<const ValueType> c, int* live, cudaStream_t stream);
template <typename ValueType>
void gather_columns(DenseView<const ValueType> c, const std::int64_t* keep, DenseView<ValueType> b,
                    cudaStream_t stream);

}  // namespace cuda::device
#endif

}  // namespace tessel
