// The simulated device's memory (internal to core/cuda/sim): allocations apart from the host's,
// registered so that every copy, memset and kernel argument can be checked against them.
#pragma once

#include <cstddef>
#include <string>

namespace tessel::sim {

enum class MemoryKind { host, device, pinned };

/// What `p .. p+bytes` is: host (not registered), device or pinned host memory. Returns a
/// non-empty explanation in `problem` when the range starts inside an allocation but runs past
/// its end, or `p` lies inside freed memory.
MemoryKind memory_kind(const void* p, std::size_t bytes, std::string& problem);

/// Registers `bytes` bytes of `kind` memory (filled with 0xff bytes: NaN, as garbage on a GPU
/// would show); nullptr when the simulated device (or host) is out of memory.
void* allocate(std::size_t bytes, MemoryKind kind);
/// Frees an allocation of `kind`; false when `p` is not the start of one.
bool release(void* p, MemoryKind kind);

/// The simulated device's memory size and what is allocated now.
std::size_t device_memory_total();
std::size_t device_memory_used();

}  // namespace tessel::sim
