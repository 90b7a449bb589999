// A and Aᵀ straight in tiled ELL (the lean build): the rays are traced block by block into
// A's final arrays and Aᵀ is transposed from A's tiled form, so no CSR copy of either exists.
#pragma once

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/system_matrix.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel::xct {

/// Rows [first, last) of A (the rays at those positions of `ordering`, entries in order
/// along the ray) in tiled ELL: array for array tiled_ell_from_csr(build_rows(...), config).
/// Every ray is traced twice (sizes, then values in place), blocks in parallel. half_values:
/// the lengths go straight to IEEE half (mixed precision; never held in ValueType).
template <typename ValueType>
TiledEll<ValueType, Index> trace_tiled(const Geometry& geometry, const Ordering& ordering, size_type first,
                                       size_type last, const TiledEllConfig& config, bool half_values = false);

/// A and Aᵀ of every ray in tiled ELL, as tiled_ell_from_csr makes them from build_rows and
/// transpose_parallel, and the seconds of the two phases; both in half when half_values.
/// Without `with_transpose` only A (at stays empty).
template <typename ValueType>
struct TiledOperators {
    TiledEll<ValueType, Index> a, at;
    double trace_seconds = 0, transpose_seconds = 0;
};
template <typename ValueType>
TiledOperators<ValueType> build_tiled_operators(const Geometry& geometry, const Ordering& ordering,
                                                const TiledEllConfig& config, bool half_values = false,
                                                bool with_transpose = true);

}  // namespace tessel::xct
