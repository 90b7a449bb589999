// Tiled ELL built straight from rows produced block by block (traced rays, generated rows),
// with no CSR copy of the whole matrix: the source is asked twice for every block of rows,
// once for the sizes and once to write every entry into its final slot.
#pragma once

#include <functional>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel {

/// A few consecutive rows as CSR (row_ptr[0] = 0), filled by a RowBlockSource.
template <typename ValueType, typename IndexType>
struct RowBlock {
    std::vector<size_type> row_ptr;
    // LargeArray: a source may resize() for a row's room and write it through pointers,
    // without the zeroing a std::vector would do first.
    LargeArray<IndexType> col;
    LargeArray<ValueType> values;
    /// Empties the block for rows to be appended with add() and end_row().
    void clear() {
        row_ptr.assign(1, 0);
        col.clear();
        values.clear();
    }
    void add(IndexType column, ValueType value) {
        col.push_back(column);
        values.push_back(value);
    }
    void end_row() { row_ptr.push_back(static_cast<size_type>(col.size())); }
};

/// Fills `out` (cleared first by the caller) with rows [first, last). It is called from several
/// threads at once and twice for every block, and must give the same rows both times.
template <typename ValueType, typename IndexType>
using RowBlockSource = std::function<void(size_type first, size_type last, RowBlock<ValueType, IndexType>& out)>;

/// The tiled ELL form of the rows × cols matrix whose rows `source` gives, array for array the
/// same as tiled_ell_from_csr on the whole CSR matrix (blocks built in parallel, two calls of
/// the source per block, memory beyond the result: each block's distinct columns, and per
/// thread one block of rows, a bit per column and an index per column). Throws InvalidInput for a bad configuration or rows that do not
/// fit (column out of range, wrong row count) and Error when the two calls differ.
/// half_values: the values go straight to IEEE half (as store_values_in_half, never held in
/// ValueType; InvalidInput for a value that is not finite or beyond ±65504).
template <typename ValueType, typename IndexType>
TiledEll<ValueType, IndexType> tiled_ell_from_row_blocks(size_type rows, size_type cols,
                                                         const RowBlockSource<ValueType, IndexType>& source,
                                                         const TiledEllConfig& config = {}, bool half_values = false);


}  // namespace tessel
