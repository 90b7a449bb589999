// Counters of host-device traffic per phase (core/device_traffic.hpp): relaxed atomics, so that
// copies and launches from several host threads are all counted.
#include "core/device_traffic.hpp"

#include <array>
#include <atomic>
#include <iterator>
#include <map>
#include <mutex>

namespace tessel::device_traffic {

namespace {

struct AtomicCounts {
    std::atomic<std::int64_t> h2d_bytes{0}, d2h_bytes{0}, copies{0}, pageable_copies{0}, synchronizations{0},
        launches{0};
};

std::array<AtomicCounts, 3> totals;
std::atomic<int> phase_now{0};
std::atomic<std::int64_t> steps{0};

// Pinned allocations by start address: few, long-lived, so a map under a mutex is cheap.
std::mutex pinned_mutex;
std::map<const char*, std::int64_t> pinned_ranges;

AtomicCounts& now() { return totals[static_cast<std::size_t>(phase_now.load(std::memory_order_relaxed))]; }

}  // namespace

void count_copy(Direction direction, std::int64_t bytes, const void* host) {
    AtomicCounts& c = now();
    (direction == Direction::host_to_device ? c.h2d_bytes : c.d2h_bytes).fetch_add(bytes, std::memory_order_relaxed);
    c.copies.fetch_add(1, std::memory_order_relaxed);
    if (!is_pinned(host)) c.pageable_copies.fetch_add(1, std::memory_order_relaxed);
}

void count_synchronization() { now().synchronizations.fetch_add(1, std::memory_order_relaxed); }
void count_launch(std::int64_t n) { now().launches.fetch_add(n, std::memory_order_relaxed); }
void count_steady_step() { steps.fetch_add(1, std::memory_order_relaxed); }

void register_pinned(const void* data, std::int64_t bytes) {
    std::lock_guard lock(pinned_mutex);
    pinned_ranges[static_cast<const char*>(data)] = bytes;
}

void unregister_pinned(const void* data) {
    std::lock_guard lock(pinned_mutex);
    pinned_ranges.erase(static_cast<const char*>(data));
}

bool is_pinned(const void* host) {
    const char* p = static_cast<const char*>(host);
    std::lock_guard lock(pinned_mutex);
    auto it = pinned_ranges.upper_bound(p);
    if (it == pinned_ranges.begin()) return false;
    --it;
    return p < it->first + it->second;
}

Phase current_phase() { return static_cast<Phase>(phase_now.load(std::memory_order_relaxed)); }
void set_phase(Phase phase) { phase_now.store(static_cast<int>(phase), std::memory_order_relaxed); }

Counts counts(Phase phase) {
    const AtomicCounts& c = totals[static_cast<std::size_t>(phase)];
    return {c.h2d_bytes.load(), c.d2h_bytes.load(), c.copies.load(), c.pageable_copies.load(),
            c.synchronizations.load(), c.launches.load()};
}

std::int64_t steady_steps() { return steps.load(); }

void reset() {
    for (AtomicCounts& c : totals) {
        c.h2d_bytes = 0;
        c.d2h_bytes = 0;
        c.copies = 0;
        c.pageable_copies = 0;
        c.synchronizations = 0;
        c.launches = 0;
    }
    steps = 0;
    set_phase(Phase::setup);
}

nlohmann::json to_json() {
    auto one = [](Phase phase) {
        const Counts c = counts(phase);
        return nlohmann::json{{"h2d_bytes", c.h2d_bytes},         {"d2h_bytes", c.d2h_bytes},
                              {"copies", c.copies},               {"pageable_copies", c.pageable_copies},
                              {"synchronizations", c.synchronizations}, {"launches", c.launches}};
    };
    return {{"setup", one(Phase::setup)},
            {"steady", one(Phase::steady)},
            {"finish", one(Phase::finish)},
            {"steady_steps", steady_steps()}};
}

}  // namespace tessel::device_traffic
