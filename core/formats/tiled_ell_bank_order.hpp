// Slots ordered for the GPU's shared-memory banks (the thesis's §2.5.3). The cuda kernels read
// the staged input as buf[kk*stride + index] with the 32 lanes of a warp on one slot row at a
// time: lanes whose indices differ but fall in the same bank are served one after another (a
// "wavefront" each). A row's entries within a stage may be summed in any order, so each
// lane's entries can be moved among its slot rows until the lanes of a slot row mostly read
// distinct banks. On xct's 512² x 750 operator (1024-entry stages) this takes A from 1.78
// wavefronts per slot row to 1.03 and Aᵀ from 2.08 to 1.02 (bench/xct/bench_bank_order.cpp).
#pragma once

#include "core/formats/tiled_ell.hpp"

namespace tessel {

/// Lanes of a warp that one shared-memory access serves together, and so the banks their
/// indices are spread over: 32 for 4-byte values, 16 for 8-byte ones (two phases per warp).
constexpr int bank_lanes(size_type value_bytes) { return value_bytes >= 8 ? 16 : 32; }

/// The mean number of shared-memory wavefronts one gather of a slot row costs, for staged
/// values of `value_bytes` (1 when the lanes of each phase read distinct banks or the same
/// index; padding reads index 0): what order_slots_for_banks lowers. 0 with no slots.
template <typename ValueType, typename IndexType>
double bank_wavefronts(const TiledEll<ValueType, IndexType>& a, size_type value_bytes = sizeof(ValueType));

/// The widest (stage, warp), in slot rows, that order_slots_for_banks reorders (its cuda kernel
/// keeps a region's entries in shared memory); wider ones keep their order.
inline constexpr int bank_order_max_width = 128;

/// bank_wavefronts before and after order_slots_for_banks, and the seconds it took where the
/// caller timed it (SpmmOperator: the device's, waited for).
struct BankOrder {
    double wavefronts_before = 0, wavefronts_after = 0;
    double seconds = 0;
};

/// Moves each row's entries among its slot rows within every (stage, warp) of 2 to
/// bank_order_max_width slot rows so that the lanes of a slot row read one address or distinct
/// banks where they can. The sweep: each lane's entries (its slots before the trailing ones of
/// index 0 and value bits 0, which are padding) are sorted by index, equal ones in slot order;
/// repeatedly, the smallest index u at the lanes' heads goes, for all the lanes holding it
/// there, to the lowest slot row where none of them has an entry yet and no other index of u's
/// bank is read in their phases, else the lowest where they are all free (a conflict), else to
/// each lane's own lowest such row in lane order. A (stage, warp) keeps the sweep's order only
/// when it has fewer wavefronts than before (bank_wavefronts never rises). The product is the
/// same up to the order of each row's sum within a stage. In a reordered (stage, warp) the
/// padding (value 0) may sit between a lane's entries and reads the index of the first lane of
/// its phase with an entry in that row (index 0 when there is none), so it costs no wavefront.
/// The structure (maps, warpdispl) is unchanged. Blocks in parallel; cuda::DeviceTiledEll::order_slots_for_banks gives the same arrays on the device.
template <typename ValueType, typename IndexType>
BankOrder order_slots_for_banks(TiledEll<ValueType, IndexType>& a, size_type value_bytes = sizeof(ValueType));

}  // namespace tessel
