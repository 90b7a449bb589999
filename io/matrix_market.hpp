// Matrix Market coordinate files: %%MatrixMarket matrix coordinate {real|integer|pattern}
// {general|symmetric}, 1-based (shared/design/FORMATS.md §4).
#pragma once

#include <string>

#include "core/formats/coo.hpp"
#include "core/formats/csr.hpp"

namespace tessel::io {

/// Reads a coordinate file as 0-based triplets; symmetric files are expanded (the mirror
/// of every off-diagonal entry added), pattern entries get the value 1.
/// Throws InvalidInput naming the file and line: bad banner, bad size line, wrong column
/// count, non-numbers, indices out of range or zero, NaN/Inf, fewer entries than declared.
template <typename ValueType, typename IndexType>
Coo<ValueType, IndexType> read_matrix_market(const std::string& path);

/// read_matrix_market, then csr_from_coo (columns sorted, duplicates summed).
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> read_matrix_market_csr(const std::string& path);

/// Writes `a` as "matrix coordinate real general" (atomically: temporary name, then rename).
template <typename ValueType, typename IndexType>
void write_matrix_market(const std::string& path, const Csr<ValueType, IndexType>& a);

}  // namespace tessel::io
