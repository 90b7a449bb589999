// Device and pinned allocations in an ordered map (start -> size, kind), so a pointer's kind
// and the allocation it lies in are found by one lookup.
#include "core/cuda/sim/memory/device_memory.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

namespace tessel::sim {

namespace {

struct Allocation {
    std::size_t bytes;
    MemoryKind kind;
    bool ordered = true;          // false until a cudaMallocAsync's stream reaches it
    bool free_requested = false;  // cudaFreeAsync called
    bool registered = false;      // the caller's host memory (cudaHostRegister), not freed here
};

std::mutex registry_mutex;
std::map<const unsigned char*, Allocation>& registry() {
    static std::map<const unsigned char*, Allocation> r;
    return r;
}
std::size_t used_bytes = 0;

// Memory freed in stream order, kept (not returned to the host) so that a use that runs after
// the free is recognised; the oldest go back once more than quarantine_limit bytes are kept.
constexpr std::size_t quarantine_limit = std::size_t(256) << 20;
std::map<const unsigned char*, std::size_t>& quarantine() {
    static std::map<const unsigned char*, std::size_t> q;
    return q;
}
std::deque<unsigned char*> quarantine_order;
std::size_t quarantined_bytes = 0;

// The allocation holding p, or end().
std::map<const unsigned char*, Allocation>::iterator holding(const unsigned char* q) {
    auto it = registry().upper_bound(q);
    if (it == registry().begin()) return registry().end();
    --it;
    const std::size_t offset = std::size_t(q - it->first);
    if (offset < it->second.bytes || (offset == 0 && it->second.bytes == 0)) return it;
    return registry().end();
}

bool quarantined(const unsigned char* q) {
    auto it = quarantine().upper_bound(q);
    if (it == quarantine().begin()) return false;
    --it;
    return std::size_t(q - it->first) < std::max<std::size_t>(it->second, 1);
}

std::size_t physical_memory() {
    return std::size_t(sysconf(_SC_PHYS_PAGES)) * std::size_t(sysconf(_SC_PAGESIZE));
}

}  // namespace

std::size_t device_memory_total() {
    // An H100's 80 GiB, or half the host's memory where that is less (TESSEL_SIM_DEVICE_MIB).
    static const std::size_t total = [] {
        if (const char* v = std::getenv("TESSEL_SIM_DEVICE_MIB")) return std::size_t(std::atoll(v)) << 20;
        return std::min<std::size_t>(std::size_t(80) << 30, physical_memory() / 2);
    }();
    return total;
}

std::size_t device_memory_used() {
    std::lock_guard lock(registry_mutex);
    return used_bytes;
}

MemoryKind memory_kind(const void* p, std::size_t bytes, std::string& problem) {
    problem.clear();
    const auto* q = static_cast<const unsigned char*>(p);
    std::lock_guard lock(registry_mutex);
    auto it = registry().upper_bound(q);
    if (it == registry().begin()) return MemoryKind::host;
    --it;
    const std::size_t offset = std::size_t(q - it->first);
    if (offset >= it->second.bytes && !(offset == 0 && it->second.bytes == 0)) return MemoryKind::host;
    if (offset + bytes > it->second.bytes)
        problem = std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " of a " +
                  std::to_string(it->second.bytes) + "-byte allocation run past its end";
    return it->second.kind;
}

void* allocate(std::size_t bytes, MemoryKind kind, bool ordered) {
    {
        std::lock_guard lock(registry_mutex);
        if (kind == MemoryKind::device && used_bytes + bytes > device_memory_total()) return nullptr;
    }
    void* p = nullptr;
    if (posix_memalign(&p, 256, bytes == 0 ? 1 : bytes) != 0) return nullptr;
    std::memset(p, 0xff, bytes);
    std::lock_guard lock(registry_mutex);
    registry()[static_cast<unsigned char*>(p)] = Allocation{bytes, kind, ordered};
    quarantine().erase(static_cast<unsigned char*>(p));  // (only if the host reused freed memory)
    if (kind == MemoryKind::device) used_bytes += bytes;
    return p;
}

bool release(void* p, MemoryKind kind) {
    {
        std::lock_guard lock(registry_mutex);
        auto it = registry().find(static_cast<unsigned char*>(p));
        if (it == registry().end() || it->second.kind != kind || it->second.registered) return false;
        if (kind == MemoryKind::device) used_bytes -= it->second.bytes;
        registry().erase(it);
    }
    std::free(p);
    return true;
}

void mark_ordered(void* p) {
    std::lock_guard lock(registry_mutex);
    auto it = registry().find(static_cast<unsigned char*>(p));
    if (it != registry().end()) it->second.ordered = true;
}

bool request_free(void* p) {
    std::lock_guard lock(registry_mutex);
    auto it = registry().find(static_cast<unsigned char*>(p));
    if (it == registry().end() || it->second.kind != MemoryKind::device || it->second.free_requested) return false;
    it->second.free_requested = true;
    return true;
}

void release_ordered(void* p) {
    auto* q = static_cast<unsigned char*>(p);
    std::lock_guard lock(registry_mutex);
    auto it = registry().find(q);
    if (it == registry().end()) return;
    used_bytes -= it->second.bytes;
    quarantine()[q] = it->second.bytes;
    quarantine_order.push_back(q);
    quarantined_bytes += it->second.bytes;
    registry().erase(it);
    while (quarantined_bytes > quarantine_limit && quarantine_order.size() > 1) {
        unsigned char* oldest = quarantine_order.front();
        quarantine_order.pop_front();
        auto old = quarantine().find(oldest);
        if (old == quarantine().end()) continue;
        quarantined_bytes -= old->second;
        quarantine().erase(old);
        std::free(oldest);
    }
}

std::string stream_order_problem(const void* p, bool running) {
    const auto* q = static_cast<const unsigned char*>(p);
    std::lock_guard lock(registry_mutex);
    auto it = holding(q);
    if (it == registry().end())
        return quarantined(q) ? "device memory used after its stream-ordered free (cudaFreeAsync)" : std::string();
    if (it->second.kind != MemoryKind::device) return {};
    if (!running && it->second.free_requested)
        return "device memory used after its stream-ordered free (cudaFreeAsync)";
    if (running && !it->second.ordered)
        return "device memory used before its stream-ordered allocation (cudaMallocAsync) is ordered before the use "
               "(its stream has not reached it: wait for an event recorded after the allocation)";
    return {};
}

bool register_host(void* p, std::size_t bytes) {
    const auto* q = static_cast<const unsigned char*>(p);
    std::lock_guard lock(registry_mutex);
    auto next = registry().lower_bound(q);
    if (next != registry().end() && next->first < q + bytes) return false;
    if (next != registry().begin()) {
        const auto prev = std::prev(next);
        if (prev->first + prev->second.bytes > q) return false;
    }
    registry()[q] = Allocation{.bytes = bytes, .kind = MemoryKind::pinned, .registered = true};
    return true;
}

bool unregister_host(void* p) {
    std::lock_guard lock(registry_mutex);
    auto it = registry().find(static_cast<unsigned char*>(p));
    if (it == registry().end() || !it->second.registered) return false;
    registry().erase(it);
    return true;
}

}  // namespace tessel::sim
