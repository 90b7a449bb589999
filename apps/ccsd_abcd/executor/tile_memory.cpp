// The tile buffer cache: a best-fit multimap of freed buffers under a byte limit, and every
// buffer made here with its capacity and whether it is registered with a device.
#include "apps/ccsd_abcd/executor/tile_memory.hpp"

#include "core/app/machine.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

namespace tessel::abcd::tile_memory {

namespace {

enum class PinState { no, yes, refused };

struct Buffer {
    std::size_t capacity = 0;
    PinState pinned = PinState::no;
    void (*unpin)(void*) = nullptr;
};

std::atomic<std::size_t> threshold{cached_from};
// The least threshold ever set: a smaller buffer never came from the cache (no lock to tell).
std::atomic<std::size_t> lowest_threshold{cached_from};

struct Cache {
    std::mutex mutex;
    std::multimap<std::size_t, void*> free;  // capacity in bytes -> buffer
    std::map<void*, Buffer> buffers;         // every buffer from here
    std::size_t kept = 0;
    std::size_t limit = 0;
    Cache() {
        limit = static_cast<std::size_t>(host_memory_bytes() / 8);
    }
    ~Cache() {
        // The process is ending: registrations go with it (the CUDA runtime may be gone).
        for (auto& [size, p] : free) std::free(p);
    }
    // Frees a buffer from here (unregistered first); the mutex is held.
    void free_buffer(std::map<void*, Buffer>::iterator it) {
        if (it->second.pinned == PinState::yes && it->second.unpin) it->second.unpin(it->first);
        std::free(it->first);
        buffers.erase(it);
    }
    void shrink_to(std::size_t bytes) {
        while (kept > bytes && !free.empty()) {
            auto it = std::prev(free.end());  // largest first
            kept -= it->first;
            free_buffer(buffers.find(it->second));
            free.erase(it);
        }
    }
};

Cache& cache() {
    static Cache c;
    return c;
}

}  // namespace

void set_cached_from(std::size_t bytes) {
    threshold = bytes;
    std::size_t low = lowest_threshold;
    while (bytes < low && !lowest_threshold.compare_exchange_weak(low, bytes)) {
    }
}

void* allocate(std::size_t bytes) {
    if (bytes < threshold) return ::operator new(bytes, std::align_val_t{64});
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
    c.buffers[p] = Buffer{rounded};
    return p;
}

void release(void* p, std::size_t bytes) noexcept {
    if (!p) return;
    if (bytes < lowest_threshold) {
        ::operator delete(p, std::align_val_t{64});
        return;
    }
    Cache& c = cache();
    std::unique_lock<std::mutex> lock(c.mutex);
    auto it = c.buffers.find(p);
    if (it == c.buffers.end()) {  // not from here: small when it was made
        lock.unlock();
        ::operator delete(p, std::align_val_t{64});
        return;
    }
    const std::size_t cap = it->second.capacity;
    if (c.kept + cap > c.limit) {
        c.free_buffer(it);
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

PinResult pin(const void* p, const Pinning& how, std::size_t& bytes) {
    Cache& c = cache();
    void* buffer = const_cast<void*>(p);
    std::size_t capacity = 0;
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        auto it = c.buffers.find(buffer);
        if (it == c.buffers.end() || it->second.pinned == PinState::refused) return PinResult::refused;
        if (it->second.pinned == PinState::yes) return PinResult::already;
        capacity = it->second.capacity;
    }
    // Outside the lock (registering takes a while); the caller holds the buffer, so it stays.
    const bool ok = how.pin(buffer, capacity);
    std::lock_guard<std::mutex> lock(c.mutex);
    Buffer& b = c.buffers.at(buffer);
    b.pinned = ok ? PinState::yes : PinState::refused;
    b.unpin = how.unpin;
    if (!ok) return PinResult::refused;
    bytes = capacity;
    return PinResult::now;
}

}  // namespace tessel::abcd::tile_memory
