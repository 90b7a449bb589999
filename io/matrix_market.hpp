// Matrix Market coordinate files: %%MatrixMarket matrix coordinate {real|integer|pattern}
// {general|symmetric|skew-symmetric}, 1-based.
#pragma once

#include <string>

#include "core/formats/coo.hpp"
#include "core/formats/csr.hpp"

namespace tessel::io {

/// Reads a coordinate file as 0-based triplets in file order; symmetric files are expanded
/// (the mirror of every off-diagonal entry follows it; skew-symmetric mirrors are negated),
/// pattern entries get the value 1. Comment and blank lines are skipped. Parses in parallel.
/// Throws InvalidInput "file:line: what": bad banner, unsupported object/format/field/symmetry
/// (array, complex, hermitian), bad size line, size too large for IndexType, wrong column
/// count, non-numbers, indices out of range or zero, NaN/Inf, fewer or more entries than
/// declared; "file: cannot open: reason" when it cannot be read.
template <typename ValueType, typename IndexType>
Coo<ValueType, IndexType> read_matrix_market(const std::string& path);

/// read_matrix_market, then csr_from_coo (columns sorted, duplicates summed).
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> read_matrix_market_csr(const std::string& path);

/// Writes `a` as "matrix coordinate real general" (atomically: temporary name, then rename).
template <typename ValueType, typename IndexType>
void write_matrix_market(const std::string& path, const Csr<ValueType, IndexType>& a);

}  // namespace tessel::io
