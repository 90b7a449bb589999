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
/// would show); nullptr when the simulated device (or host) is out of memory. `ordered` false:
/// a stream-ordered allocation (cudaMallocAsync), not usable by work that runs before
/// mark_ordered() (its stream reaching the allocation).
void* allocate(std::size_t bytes, MemoryKind kind, bool ordered = true);
/// Frees an allocation of `kind`; false when `p` is not the start of one (or is host memory
/// registered below, which stays the caller's).
bool release(void* p, MemoryKind kind);
/// cudaHostRegister: the caller's host memory p .. p+bytes counts as pinned until
/// unregister_host(p); false when it overlaps memory known here.
bool register_host(void* p, std::size_t bytes);
/// Undoes register_host; false when `p` does not start a registered range.
bool unregister_host(void* p);

/// Stream-ordered allocation and free (cudaMallocAsync, cudaFreeAsync): the allocation's stream
/// has reached it; cudaFreeAsync was called (work enqueued from now on may not use it; false
/// when `p` is not the start of a live device allocation or its free was already asked for);
/// its stream has reached the free: the memory is kept aside, so that work still running on it
/// is reported rather than reading freed memory.
void mark_ordered(void* p);
bool request_free(void* p);
void release_ordered(void* p);

/// Why a use of `p` breaks stream order, or "" when it does not: `running` false for a call
/// being enqueued (after cudaFreeAsync), true for work that runs now (before its allocation's
/// stream reached the allocation, or after it reached the free).
std::string stream_order_problem(const void* p, bool running);

/// The simulated device's memory size and what is allocated now.
std::size_t device_memory_total();
std::size_t device_memory_used();

}  // namespace tessel::sim
