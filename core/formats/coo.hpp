// Coordinate (triplet) sparse matrix: the exchange format readers produce.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel {

/// rows x cols sparse matrix as unordered triplets (row[e], col[e], values[e]), 0-based.
/// Duplicates are allowed; conversion to CSR sums them.
template <typename ValueType, typename IndexType>
struct Coo {
    size_type rows = 0;
    size_type cols = 0;
    std::vector<IndexType> row;
    std::vector<IndexType> col;
    std::vector<ValueType> values;

    size_type nnz() const { return static_cast<size_type>(values.size()); }

    /// Checks sizes, index ranges and finiteness; throws InvalidInput naming `name` and the
    /// 1-based entry number.
    void validate(const std::string& name = "coo") const;
};

}  // namespace tessel
