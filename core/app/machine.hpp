// What this machine is and has: its name, CPU model, memory, last-level cache, cores. The
// probes answer 0 when the system does not say; host_memory_bytes is the one fallback.
#pragma once

#include <cstddef>
#include <string>

#include "core/cache_size.hpp"  // llc_bytes(), the last-level cache

namespace tessel {


/// MemTotal of /proc/meminfo (else pages x page size) in bytes; 0 when unknown.
double physical_memory_bytes();

/// physical_memory_bytes(), or 8 GiB when the system does not say: the one figure that
/// budgets and size checks assume then.
double host_memory_bytes();

/// MemAvailable of /proc/meminfo in bytes; 0 when unknown. TESSEL_AVAILABLE_MEMORY (a size
/// such as 4G) replaces it: tests pin the figure their expected messages print.
double available_memory_bytes();

/// Cores in this process's affinity mask (at least 1).
int cores_allowed();

/// The host's name (gethostname).
std::string host_name();

/// The CPU's "model name" from /proc/cpuinfo; "unknown" when it has none.
std::string cpu_model();

}  // namespace tessel
