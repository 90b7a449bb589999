// The current device's limits that kernel launches are planned with (SM count, shared memory
// per block with and without opting in) and its name for messages (core/cuda/runtime/device_info.cpp).
#pragma once

#include <algorithm>
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

/// Registers of one multiprocessor (sm_70 to sm_90).
constexpr size_type registers_per_multiprocessor = 65536;

/// Resident blocks of block_rows threads per multiprocessor that a kernel compiled for
/// `threads` threads per multiprocessor (its launch bounds) allows for certain: the registers
/// those bounds leave each thread, rounded down to ptxas's steps of 8.
inline size_type blocks_by_registers(size_type threads, size_type block_rows) {
    const size_type per_thread = std::min<size_type>(255, registers_per_multiprocessor / threads) / 8 * 8;
    return std::max<size_type>(1, registers_per_multiprocessor / (per_thread * block_rows));
}

}  // namespace tessel::cuda::detail
