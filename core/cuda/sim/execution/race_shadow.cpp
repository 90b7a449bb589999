// The race check's shadow words: two accesses race when different threads make them between
// the same two barriers, at least one writes, and not both are atomic.
#include "core/cuda/sim/execution/race_shadow.hpp"

namespace tessel::sim {

namespace {

bool unordered(const AccessStamp& earlier, const AccessStamp& now) {
    if (earlier.thread < 0 || earlier.thread == now.thread) return false;
    if (earlier.block_epoch != now.block_epoch) return false;  // a __syncthreads (or block) since
    return !(earlier.warp == now.warp && earlier.warp_epoch < now.warp_epoch);  // or a __syncwarp
}

bool races(const AccessStamp& earlier, const AccessStamp& now) {
    return unordered(earlier, now) && !(earlier.atomic && now.atomic);
}

std::string describe(const AccessStamp& earlier, const char* what) {
    return "thread " + std::to_string(earlier.thread) + (earlier.atomic ? " atomically " : " ") + what + " it";
}

}  // namespace

void RaceShadow::reserve(std::size_t bytes) {
    if (words_.size() < bytes / 4 + 1) words_.resize(bytes / 4 + 1);
}

std::string RaceShadow::record(std::size_t word, const AccessStamp& now, bool write) {
    Word& w = words_[word];
    if (races(w.write, now)) return describe(w.write, "wrote");
    if (write) {
        if (races(w.read1, now)) return describe(w.read1, "read");
        if (races(w.read2, now)) return describe(w.read2, "read");
        w.write = now;
        w.read1 = w.read2 = AccessStamp{};
        return {};
    }
    // Keep this reader beside one other of the same interval.
    const auto stale = [&](const AccessStamp& r) {
        return r.thread < 0 || r.thread == now.thread || r.block_epoch != now.block_epoch;
    };
    if (stale(w.read1))
        w.read1 = now;
    else
        w.read2 = now;
    return {};
}

}  // namespace tessel::sim
