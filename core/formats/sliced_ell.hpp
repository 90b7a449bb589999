// Sliced ELL: rows in slices of 32, each slice padded to its longest row, entries interleaved.
#pragma once

#include <vector>

#include "core/formats/csr.hpp"
#include "core/types.hpp"

namespace tessel {

/// Slice s holds rows 32s .. 32s+31. Its width w_s = longest row in the slice; slot m of lane
/// r (row 32s + r) is entry slice_ptr[s]*32 + m*32 + r of col_idx / values (interleaved so
/// that the 32 lanes read consecutive memory). Padding slots have value 0 and a valid column.
template <typename ValueType, typename IndexType>
struct SlicedEll {
    static constexpr size_type slice_height = 32;

    size_type rows = 0;
    size_type cols = 0;
    size_type nnz = 0;                  // true nonzeros (without padding)
    std::vector<size_type> slice_ptr;   // slices + 1 offsets, in slots of 32 entries
    std::vector<IndexType> col_idx;
    std::vector<ValueType> values;

    size_type num_slices() const { return static_cast<size_type>(slice_ptr.size()) - 1; }
    size_type stored() const { return static_cast<size_type>(values.size()); }
    /// Padding as a fraction of the nonzeros (0 = none).
    double padding_overhead() const { return nnz ? double(stored() - nnz) / double(nnz) : 0.0; }
};

template <typename ValueType, typename IndexType>
SlicedEll<ValueType, IndexType> sliced_ell_from_csr(const Csr<ValueType, IndexType>& a);

template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> csr_from_sliced_ell(const SlicedEll<ValueType, IndexType>& a);

}  // namespace tessel
