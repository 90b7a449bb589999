// A tiled ELL matrix's slots ordered for shared-memory banks on the device (internal:
// DeviceTiledEll::order_slots_for_banks).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/types.hpp"

namespace tessel::cuda::detail {

/// The sweep of order_slots_for_banks (core/formats/tiled_ell_bank_order.hpp) on every
/// (stage, warp) of `regions` (warpdispl's entries; payload = the values, or the half values)
/// with `banks` lanes per phase: the same arrays as the host's. One warp per (stage, warp),
/// the region in shared memory. With `totals` (device memory, two zeroed counters) the
/// wavefronts of every slot row before and after are added there. Ordered on `stream`.
template <typename P>
void order_slots_for_banks(const size_type* warpdispl, size_type regions, std::uint16_t* index, P* payload, int banks,
                           unsigned long long* totals, cudaStream_t stream);

}  // namespace tessel::cuda::detail
