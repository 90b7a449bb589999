// The last-level cache's size, read once from sysfs: what cache-aware kernels and the probes of
// core/app size their work by.
#pragma once

#include <cstddef>

namespace tessel {

/// Bytes of the largest (last-level) cache of cpu0, from sysfs
/// (/sys/devices/system/cpu/cpu0/cache/index*/size of the highest level); 0 when unknown.
/// sysconf(_SC_LEVEL3_CACHE_SIZE) is wrong under some hypervisors (reports 0 or the L2).
std::size_t llc_bytes();

}  // namespace tessel
