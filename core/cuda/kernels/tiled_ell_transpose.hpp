// Aᵀ's slots made on the device from A's (internal: DeviceTiledEll's transposing constructor).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/cuda/device_formats.hpp"
#include "core/types.hpp"

namespace tessel::cuda::detail {

/// Aᵀ's device arrays as the fill writes them: its layout (tiled_ell_transpose_layout's,
/// uploaded), a zeroed counter per (stage, row), and zeroed slots.
template <typename V, typename I>
struct TransposedSlots {
    size_type block_rows, warps_per_block, buffer_entries, stages;
    const size_type* buffdispl;
    const size_type* mapdispl;
    const I* map;
    const size_type* warpdispl;
    std::int32_t* counts;         // stages x block_rows
    std::uint16_t* index;
    V* values;                    // null when the values are half
    std::uint16_t* half_values;   // or null
};

/// Every nonzero entry of `a` to its slot of Aᵀ (its stage from the rank of A's row among the
/// rows that meet Aᵀ's block, its place in the row from an atomic counter), then each row's
/// entries of a stage ordered by their index, which is A's row order: the slots the host
/// transpose writes (tiled_ell_transpose), padding left zero. Ordered on `stream`.
template <typename V, typename I>
void fill_transposed_slots(const DeviceTiledEll<V, I>& a, const TransposedSlots<V, I>& t, cudaStream_t stream);

}  // namespace tessel::cuda::detail
