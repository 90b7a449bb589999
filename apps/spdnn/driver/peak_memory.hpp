// The peak resident memory of this process as the OS counts it (for the out-of-core claim:
// streaming from disk holds two layers, not the network).
#pragma once

#include "core/types.hpp"

namespace tessel::spdnn {

/// Peak resident set size in bytes: VmHWM of /proc/self/status, else getrusage's ru_maxrss;
/// 0 when neither is available.
size_type peak_rss_bytes();

}  // namespace tessel::spdnn
