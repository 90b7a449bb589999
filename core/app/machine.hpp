// What this machine has: memory, last-level cache, cores. Each probe answers 0 when the
// system does not say, so callers choose their own fallback.
#pragma once

#include <cstddef>

namespace tessel {

/// Bytes of the largest (last-level) cache of cpu0, from sysfs
/// (/sys/devices/system/cpu/cpu0/cache/index*/size of the highest level); 0 when unknown.
/// sysconf(_SC_LEVEL3_CACHE_SIZE) is wrong under some hypervisors (reports 0 or the L2).
std::size_t llc_bytes();

/// MemTotal of /proc/meminfo (else pages x page size) in bytes; 0 when unknown.
double physical_memory_bytes();

/// MemAvailable of /proc/meminfo in bytes; 0 when unknown. TESSEL_AVAILABLE_MEMORY (a size
/// such as 4G) replaces it: tests pin the figure their expected messages print.
double available_memory_bytes();

/// Cores in this process's affinity mask (at least 1).
int cores_allowed();

}  // namespace tessel
