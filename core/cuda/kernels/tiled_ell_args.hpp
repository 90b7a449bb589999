// What the tiled ELL kernels, the product, the transposed product and the row groups' product,
// take of a device matrix, its values as they read them, and the shared memory they size their
// tiles by (internal).
#pragma once

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/device_formats.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/cuda/runtime/device_limits.hpp"
#include "core/types.hpp"

namespace tessel::cuda::detail {

/// The device arrays of a tiled ELL matrix, passed to a kernel by value.
template <typename V, typename I>
struct TiledArgs {
    size_type rows;
    size_type block_rows;
    size_type warps_per_block;
    const size_type* __restrict__ buffdispl;
    const size_type* __restrict__ mapdispl;
    const I* __restrict__ map;
    const size_type* __restrict__ warpdispl;
    const std::uint16_t* __restrict__ index;
    const V* __restrict__ values;                   // null when the values are half
    const std::uint16_t* __restrict__ half_values;  // IEEE half bits, or null
    // Distance between the staged columns in shared memory: max_stage_entries made odd, so
    // that the R threads touching one staged row hit R different banks.
    int stage_stride;
};

/// max_stage_entries made odd (TiledArgs::stage_stride).
inline int stage_stride(size_type max_stage_entries) { return static_cast<int>(max_stage_entries | 1); }

template <typename V, typename I>
TiledArgs<V, I> tiled_args(const DeviceTiledEll<V, I>& a) {
    return {a.rows(),      a.block_rows(), a.warps_per_block(), a.buffdispl(),   a.mapdispl(), a.map(),
            a.warpdispl(), a.index(),      a.values(),          a.half_values(), stage_stride(a.max_stage_entries())};
}

/// The same arrays of a matrix of row groups (core/formats/grouped_ell.hpp): its blocks have
/// block_rows / group threads, its values group per slot (its kernel stages B entry by entry,
/// stage_entries.hpp, and does not use stage_stride).
template <typename V, typename I>
TiledArgs<V, I> grouped_args(const DeviceGroupedEll<V, I>& a) {
    return {a.rows(),      a.block_rows(), a.warps_per_block(), a.buffdispl(),   a.mapdispl(), a.map(),
            a.warpdispl(), a.index(),      a.values(),          a.half_values(), stage_stride(a.max_stage_entries())};
}

/// Slot value e of A: fp16 values widened, else as stored. A uniform branch: every thread of the
/// launch takes the same side.
template <typename V, typename I>
__device__ __forceinline__ V slot_value(const TiledArgs<V, I>& a, size_type e) {
    return a.half_values ? V(__half2float(__ushort_as_half(a.half_values[e]))) : a.values[e];
}

/// Shared memory per block that leaves `resident` blocks room on one multiprocessor (and
/// never more than one block may have).
inline size_type shared_budget(const DeviceLimits& limits, size_type resident) {
    return std::min(limits.shared_per_block_optin, limits.shared_per_multiprocessor / resident);
}

}  // namespace tessel::cuda::detail
