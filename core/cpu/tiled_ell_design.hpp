// The cpu tiled-ELL kernels' choice of design for a matrix (core/cpu/tiled_ell_block.hpp runs
// it): the same at every level, so the dispatching code and the tests ask it without a level.
#pragma once

#include "core/formats/tiled_ell.hpp"

namespace tessel::cpu::detail {

/// Average slots per (stage, warp) from which the slot-order design runs for R > 1: a warp's
/// slots then exceed what stays in L1 while the register design reads them once per group of
/// rows (measured on xct's projection matrices, a few hundred slots per warp: slot order 15 %
/// faster at K = 16; spdnn's layers, 32 slots per warp, run best in registers).
inline constexpr double slot_order_width = 64.0;

/// True when the slot-order design runs for R > 1 (long ELL rows, see slot_order_width).
template <typename V, typename I>
bool prefers_slot_order(const TiledEll<V, I>& a) {
    const double warp_stages = double(a.num_stages()) * double(a.warps_per_block());
    return warp_stages > 0 && double(a.stored()) / (32.0 * warp_stages) >= slot_order_width;
}

/// Average uses of a staged entry (TiledEll::average_reuse) from which the cpu kernel copies
/// each stage's rows of B into a packed buffer; below it the rows are read in place through
/// the stage's map (copying rows used once or twice costs more than it saves: measured on the
/// 5-point stencil, reuse 1.7, and the banded matrix).
inline constexpr double staging_reuse = 4.0;

}  // namespace tessel::cpu::detail
