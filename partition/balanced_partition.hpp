// Contiguous partitions of rows, columns or any weighted sequence, balanced by weight (nonzeros).
#pragma once

#include <vector>

#include "core/formats/csr.hpp"
#include "core/types.hpp"

namespace tessel::partition {

/// Offsets o[0] = 0 <= o[1] <= ... <= o[parts] = weights.size() cutting the sequence into
/// `parts` contiguous pieces: boundary p is the first position where the prefix weight reaches
/// p·W/parts (W the total), so every piece weighs at most W/parts + max weight. Pieces may be
/// empty (more parts than items, or zero weights). Throws InvalidInput when parts < 1.
std::vector<size_type> balanced_offsets(const std::vector<size_type>& weights, int parts);

/// Rows of `a` in `parts` contiguous pieces balanced by nonzeros (each row weighs nnz + 1, so
/// that empty rows are spread too).
template <typename ValueType, typename IndexType>
std::vector<size_type> row_offsets_by_nnz(const Csr<ValueType, IndexType>& a, int parts);

/// Columns of `a` in `parts` contiguous pieces balanced by nonzeros (weight nnz + 1 per column).
template <typename ValueType, typename IndexType>
std::vector<size_type> col_offsets_by_nnz(const Csr<ValueType, IndexType>& a, int parts);

/// `parts` near-equal pieces of 0 .. n-1 (for the k columns of B and C).
std::vector<size_type> even_offsets(size_type n, int parts);

/// Imbalance max piece weight / mean piece weight (1 = perfect; 0 when W = 0).
double imbalance(const std::vector<size_type>& weights, const std::vector<size_type>& offsets);

}  // namespace tessel::partition
