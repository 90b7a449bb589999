// Compressed sparse row matrix: 64-bit row offsets, IndexType column indices.
#pragma once

#include <string>
#include <vector>

#include "core/formats/coo.hpp"
#include "core/types.hpp"

namespace tessel {

/// rows x cols matrix in CSR. Row i holds entries row_ptr[i] .. row_ptr[i+1]-1.
/// Columns inside a row need not be sorted (sorted() says whether they are).
template <typename ValueType, typename IndexType>
class Csr {
public:
    using value_type = ValueType;
    using index_type = IndexType;

    Csr() = default;
    /// Takes the arrays and validates them (throws InvalidInput naming `name`).
    Csr(size_type rows, size_type cols, std::vector<size_type> row_ptr,
        std::vector<IndexType> col_idx, std::vector<ValueType> values,
        const std::string& name = "csr");

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type nnz() const { return static_cast<size_type>(values_.size()); }
    size_type row_nnz(size_type i) const { return row_ptr_[i + 1] - row_ptr_[i]; }
    double average_row_length() const { return rows_ ? double(nnz()) / double(rows_) : 0.0; }
    size_type max_row_length() const;
    bool sorted() const;

    const std::vector<size_type>& row_ptr() const { return row_ptr_; }
    const std::vector<IndexType>& col_idx() const { return col_idx_; }
    const std::vector<ValueType>& values() const { return values_; }
    /// Values may change in place (same pattern), for example between solver iterations.
    std::vector<ValueType>& values_mut() { return values_; }

    /// Sorts the columns inside every row.
    void sort_columns();

private:
    size_type rows_ = 0;
    size_type cols_ = 0;
    std::vector<size_type> row_ptr_{0};
    std::vector<IndexType> col_idx_;
    std::vector<ValueType> values_;
};

/// CSR from triplets: columns sorted in each row, duplicates summed. Throws InvalidInput.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> csr_from_coo(const Coo<ValueType, IndexType>& coo,
                                       const std::string& name = "coo");

/// Triplets in row order.
template <typename ValueType, typename IndexType>
Coo<ValueType, IndexType> coo_from_csr(const Csr<ValueType, IndexType>& csr);

/// Aᵀ as CSR (columns sorted).
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> transpose(const Csr<ValueType, IndexType>& a);

/// Same matrix with another index type. Throws InvalidInput if an index does not fit.
template <typename ValueType, typename To, typename From>
Csr<ValueType, To> convert_index(const Csr<ValueType, From>& a);

}  // namespace tessel
