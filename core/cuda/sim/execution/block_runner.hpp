// Runs one simulated block on the calling host thread (internal to core/cuda/sim): one fiber
// per CUDA thread, scheduled in a seeded shuffled order between barriers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>

namespace tessel::sim {

struct BlockJob {
    const char* kernel = "";
    dim3 grid;
    dim3 block;
    uint3 block_idx;
    std::size_t dynamic_shared = 0;
    std::uint64_t seed = 0;
    const std::function<void()>* body = nullptr;  // the kernel called with its arguments
};

/// Runs every thread of the block to its end. Throws Fault (what and where) when a thread
/// faults or the threads deadlock; the block's other threads are then unwound.
void run_block(const BlockJob& job);

/// Whether the race check runs (TESSEL_SIM_RACECHECK=0 turns it off).
bool race_check_enabled();

}  // namespace tessel::sim
