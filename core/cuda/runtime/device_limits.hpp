// The current device's limits that kernel launches are planned with (SM count, shared memory
// per block with and without opting in) and its name for messages (core/cuda/runtime/device_info.cpp).
#pragma once

#include <string>

#include "core/types.hpp"

namespace tessel::cuda::detail {

/// What the kernels need to know about the current device.
struct DeviceLimits {
    int device = 0;
    int sm_count = 0;
    /// Dynamic shared memory one block may use after opting in (cudaFuncSetAttribute).
    size_type shared_per_block_optin = 0;
    /// Without opting in (48 KiB on every supported GPU).
    size_type shared_per_block = 0;
    /// Shared memory of one multiprocessor, which its resident blocks split.
    size_type shared_per_multiprocessor = 0;
};

/// Limits of the device current on this thread (core/cuda/runtime/device_info.cpp).
DeviceLimits current_device_limits();

/// Name of the current device, for messages.
std::string current_device_name();

}  // namespace tessel::cuda::detail
