// The simulated device: an H100's limits (internal to core/cuda/sim), which every launch and
// every query of the runtime answers with.
#pragma once

#include <cstddef>

namespace tessel::sim::h100 {

inline constexpr int sm_count = 132;
inline constexpr int max_threads_per_block = 1024;
inline constexpr unsigned max_block_dim[3] = {1024, 1024, 64};
inline constexpr unsigned max_grid_dim[3] = {2147483647u, 65535u, 65535u};
inline constexpr std::size_t shared_per_block = 48 * 1024;
inline constexpr std::size_t shared_per_block_optin = 227 * 1024;
inline constexpr std::size_t shared_per_multiprocessor = 228 * 1024;
inline constexpr int max_threads_per_sm = 2048;

}  // namespace tessel::sim::h100
