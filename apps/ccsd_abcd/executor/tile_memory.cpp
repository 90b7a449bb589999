// The tile buffer cache: a best-fit multimap of freed buffers under a byte limit.
#include "apps/ccsd_abcd/executor/tile_memory.hpp"

#include "core/app/machine.hpp"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

namespace tessel::abcd::tile_memory {

namespace {

struct Cache {
    std::mutex mutex;
    std::multimap<std::size_t, void*> free;  // capacity in bytes -> buffer
    std::map<void*, std::size_t> capacity;   // every buffer from here -> its capacity
    std::size_t kept = 0;
    std::size_t limit = 0;
    Cache() {
        limit = static_cast<std::size_t>(host_memory_bytes() / 8);
    }
    ~Cache() {
        for (auto& [size, p] : free) std::free(p);
    }
    void shrink_to(std::size_t bytes) {
        while (kept > bytes && !free.empty()) {
            auto it = std::prev(free.end());  // largest first
            kept -= it->first;
            capacity.erase(it->second);
            std::free(it->second);
            free.erase(it);
        }
    }
};

Cache& cache() {
    static Cache c;
    return c;
}

}  // namespace

void* allocate(std::size_t bytes) {
    if (bytes < cached_from) return ::operator new(bytes, std::align_val_t{64});
    Cache& c = cache();
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        auto it = c.free.lower_bound(bytes);
        if (it != c.free.end() && it->first <= bytes + bytes / 4) {
            void* p = it->second;
            c.kept -= it->first;
            c.free.erase(it);
            return p;
        }
    }
    const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, rounded);
    if (!p) throw std::bad_alloc();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.capacity[p] = rounded;
    return p;
}

void release(void* p, std::size_t bytes) noexcept {
    if (!p) return;
    if (bytes < cached_from) {
        ::operator delete(p, std::align_val_t{64});
        return;
    }
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.capacity.find(p);
    const std::size_t cap = it != c.capacity.end() ? it->second : bytes;
    if (c.kept + cap > c.limit) {
        if (it != c.capacity.end()) c.capacity.erase(it);
        std::free(p);
        return;
    }
    c.free.emplace(cap, p);
    c.kept += cap;
}

void set_limit(std::size_t bytes) {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.limit = bytes;
    c.shrink_to(bytes);
}

std::size_t cached_bytes() {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.kept;
}

void trim() {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.shrink_to(0);
}

}  // namespace tessel::abcd::tile_memory
