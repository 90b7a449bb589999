// The xct operator's CPU kernel for tiled ELL: C := A·B walking the ELL slots in storage
// order (slot by slot, the lanes of a slot together), which the core kernel's lane-by-lane
// order does not do on CPUs (each lane strides over 32-wide slots and leaves L1).
#pragma once

#include "apps/xct/system_matrix.hpp"
#include "core/dense.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel::xct {

/// Register tiles this kernel is compiled for (columns of B per pass over A).
inline constexpr int slot_kernel_factors[] = {1, 2, 4, 8, 16, 32, 64};

/// The register tile for k right-hand sides: the smallest compiled factor >= k (64 for more:
/// A is then read once per 64 slices).
int choose_slot_register_factor(size_type k);

/// C := A·B, A m x n tiled ELL, B n x k and C m x k row-major (any leading dimension). One
/// task per block of rows: for each stage the mapped rows of B (R columns at a time) are
/// staged into a contiguous buffer, then every ELL slot of every warp adds value·buffer[index]
/// into the block's accumulators (SIMD over the 32 lanes for R = 1, over the R columns
/// otherwise). register_factor 0 chooses; otherwise one of slot_kernel_factors. Throws
/// DimensionMismatch, InvalidInput (register factor).
template <typename ValueType>
void spmm_tiled_slots(const TiledEll<ValueType, Index>& a, DenseView<const ValueType> b, DenseView<ValueType> c,
                      int register_factor = 0);

}  // namespace tessel::xct
