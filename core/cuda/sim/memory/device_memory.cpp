// Device and pinned allocations in an ordered map (start -> size, kind), so a pointer's kind
// and the allocation it lies in are found by one lookup.
#include "core/cuda/sim/memory/device_memory.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace tessel::sim {

namespace {

struct Allocation {
    std::size_t bytes;
    MemoryKind kind;
};

std::mutex registry_mutex;
std::map<const unsigned char*, Allocation>& registry() {
    static std::map<const unsigned char*, Allocation> r;
    return r;
}
std::size_t used_bytes = 0;

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

void* allocate(std::size_t bytes, MemoryKind kind) {
    {
        std::lock_guard lock(registry_mutex);
        if (kind == MemoryKind::device && used_bytes + bytes > device_memory_total()) return nullptr;
    }
    void* p = nullptr;
    if (posix_memalign(&p, 256, bytes == 0 ? 1 : bytes) != 0) return nullptr;
    std::memset(p, 0xff, bytes);
    std::lock_guard lock(registry_mutex);
    registry()[static_cast<unsigned char*>(p)] = Allocation{bytes, kind};
    if (kind == MemoryKind::device) used_bytes += bytes;
    return p;
}

bool release(void* p, MemoryKind kind) {
    {
        std::lock_guard lock(registry_mutex);
        auto it = registry().find(static_cast<unsigned char*>(p));
        if (it == registry().end() || it->second.kind != kind) return false;
        if (kind == MemoryKind::device) used_bytes -= it->second.bytes;
        registry().erase(it);
    }
    std::free(p);
    return true;
}

}  // namespace tessel::sim
