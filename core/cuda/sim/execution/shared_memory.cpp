// The checks behind every shared-memory access: the bytes lie inside one of the block's shared
// arrays, and (race check on) no other thread touched them since the last barrier in a way
// that conflicts.
#include "core/cuda/sim/execution/shared_memory.hpp"

#include <string>

#include "core/cuda/sim/execution/block.hpp"
#include "core/cuda/sim/execution/block_runner.hpp"
#include "core/cuda/sim/runtime/fault.hpp"

namespace tessel::sim {

namespace {

const char* verb(Access access) {
    switch (access) {
    case Access::read: return "reads";
    case Access::write: return "writes";
    case Access::atomic_read: return "atomically reads";
    case Access::atomic_write: return "atomically writes";
    }
    return "?";
}

bool is_write(Access a) { return a == Access::write || a == Access::atomic_write; }
bool is_atomic(Access a) { return a == Access::atomic_read || a == Access::atomic_write; }

const SharedRegion& region_of(const Block& b, std::ptrdiff_t offset, std::size_t bytes, Access access) {
    for (const SharedRegion& r : b.regions)
        if (offset >= std::ptrdiff_t(r.offset) && std::size_t(offset) + bytes <= r.offset + r.bytes) return r;
    std::string arrays;
    for (const SharedRegion& r : b.regions)
        arrays += (arrays.empty() ? "" : ", ") + r.name + " at " + std::to_string(r.offset) + " (" +
                  std::to_string(r.bytes) + " bytes)";
    fault(cudaErrorIllegalAddress, std::string(verb(access)) + " " + std::to_string(bytes) +
                                       " bytes of shared memory at offset " + std::to_string(offset) +
                                       ", outside the block's shared arrays: " + arrays);
}

}  // namespace

void check_shared_access(const void* address, std::size_t bytes, Access access) {
    Block& b = running_block_state();
    const std::ptrdiff_t offset = static_cast<const unsigned char*>(address) - b.shared;
    const SharedRegion& region = region_of(b, offset, bytes, access);
    if (!race_check_enabled()) return;
    const SimThread& t = running_sim_thread();
    const AccessStamp now{t.ctx.linear, t.ctx.warp, b.warps[t.ctx.warp].epoch, b.epoch, is_atomic(access)};
    for (std::size_t word = std::size_t(offset) / 4; word <= (std::size_t(offset) + bytes - 1) / 4; ++word) {
        const std::string other = b.shadow->record(word, now, is_write(access));
        if (!other.empty())
            fault(cudaErrorLaunchFailure,
                  "race in shared memory: thread " + std::to_string(t.ctx.linear) + " " + verb(access) + " " +
                      std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " (" + region.name +
                      " + " + std::to_string(std::size_t(offset) - region.offset) + ") and " + other +
                      " with no barrier between");
    }
}

}  // namespace tessel::sim
