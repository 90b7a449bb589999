// The projection matrix A (rays x pixels, exact intersection lengths) built in parallel in
// two passes, and a parallel deterministic transpose for Aᵀ.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "core/formats/csr.hpp"

namespace tessel::xct {

/// Column indices of the projection matrices (pixel or ray positions, < 2^31).
using Index = std::int32_t;

/// Entries of the rays at positions [first, last) of `ordering` (the count pass, in parallel).
std::vector<size_type> count_rows(const Geometry& geometry, const Ordering& ordering, size_type first,
                                  size_type last);

/// Rows [first, last) of A: row i is the ray at position first + i, its entries the exact
/// lengths in the pixels it crosses in order along the ray, columns = pixel positions. Two passes over the
/// rays, both parallel with no serial step but a prefix sum over rows: count (skipped when
/// `counts` is given, one per row), then fill each row in place. Throws InvalidInput.
template <typename ValueType>
Csr<ValueType, Index> build_rows(const Geometry& geometry, const Ordering& ordering, size_type first,
                                 size_type last, std::span<const size_type> counts = {});

/// Aᵀ as CSR with sorted columns, built in parallel: rows of A cut into one contiguous range per
/// thread, per-thread column counts, offsets per (column, thread), then each thread scatters
/// its range; the result is the same for any thread count.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> transpose_parallel(const Csr<ValueType, IndexType>& a);

/// Σ over rays of bound_ray: an upper bound of nnz(A) in O(rays), for the memory estimate.
size_type estimate_nnz(const Geometry& geometry);

}  // namespace tessel::xct
