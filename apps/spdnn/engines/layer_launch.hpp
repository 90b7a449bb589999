// What the two layer kernels' launches share (host code, internal): the grid's column blocks and
// the shared-memory opt-in, raised once per kernel.
#pragma once

#include <algorithm>
#include <atomic>

#include "apps/spdnn/engines/cuda_layer_kernels.hpp"
#include "core/cuda/kernels/spmm_launch.hpp"
#include "core/cuda/runtime/device_limits.hpp"

namespace tessel::spdnn::device::detail {

// Column blocks for this many waves of the device; each block strides over the tiles.
constexpr size_type waves = 2;

/// Column blocks of a layer's grid: enough for two waves of `per_sm` resident blocks on every
/// SM, never more than max_columns has tiles of `factor` columns (nor the grid's y limit).
inline size_type column_blocks(const LayerArrays& w, size_type max_columns, int factor, size_type per_sm,
                               int sm_count) {
    const size_type tiles = std::max<size_type>(1, (max_columns + factor - 1) / factor);
    const size_type wanted = waves * std::max<size_type>(per_sm, 1) * std::max(sm_count, 1);
    const size_type row_blocks = std::max<size_type>(w.num_blocks, 1);
    return std::clamp<size_type>((wanted + row_blocks - 1) / row_blocks, 1, std::min(tiles, size_type(65535)));
}

/// core's allow_shared_bytes for Kernel with the planned limits, the first time a launch needs
/// more than the default (it raises the limit to the device's opt-in maximum, the same value every
/// time, so concurrent callers never lower it under one another), not at every layer.
template <auto Kernel>
void allow_shared_once(const LayerLaunch& launch) {
    static std::atomic<bool> raised{false};
    if (launch.shared_bytes <= launch.shared_without_optin || raised.load()) return;
    cuda::detail::DeviceLimits limits;
    limits.shared_per_block = launch.shared_without_optin;
    limits.shared_per_block_optin = launch.shared_optin;
    cuda::detail::allow_shared_bytes(Kernel, launch.shared_bytes, limits);
    raised = true;
}

}  // namespace tessel::spdnn::device::detail
