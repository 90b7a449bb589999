// The merge-path search of merge-based CSR SpMM (Merrill & Garland 2016), shared by the cpu and
// cuda kernels: where diagonal d of the (rows + nonzeros) merge grid crosses the path.
#pragma once

#include "core/kernels/epilogue.hpp"  // TESSEL_HOST_DEVICE
#include "core/types.hpp"

namespace tessel {

/// A point of the merge path: rows finished and nonzeros consumed.
struct MergeCoord {
    size_type row;
    size_type nz;
};

/// The point of the path on diagonal d (row + nz = d), by binary search over the rows' end
/// offsets row_end[0 .. rows) (row_ptr + 1) of a matrix with nnz nonzeros.
TESSEL_HOST_DEVICE inline MergeCoord merge_path_search(size_type d, const size_type* row_end, size_type rows,
                                                       size_type nnz) {
    size_type lo = d - nnz > 0 ? d - nnz : 0;
    size_type hi = d < rows ? d : rows;
    while (lo < hi) {
        const size_type mid = (lo + hi) / 2;
        if (row_end[mid] <= d - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return {lo, d - lo};
}

}  // namespace tessel
