// The state of one simulated block while it runs on a host thread (internal to core/cuda/sim):
// its threads (fibers), warps, barrier, shared memory and race-check shadow.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda/sim/execution/device_intrinsics.hpp"
#include "core/cuda/sim/execution/race_shadow.hpp"

namespace tessel::sim {

enum class ThreadState : std::uint8_t { runnable, at_barrier, at_warp, done };

struct SimThread {
    ThreadContext ctx;
    ThreadState state = ThreadState::runnable;
    boost::context::fiber fiber;  // the thread's own stack, suspended
    boost::context::fiber caller;  // the scheduler, while the thread runs
    const void* barrier_site = nullptr;  // which __syncthreads it waits in
    int static_declarations = 0;         // static __shared__ arrays passed so far
    // A pending warp collective.
    WarpOp op = WarpOp::sync;
    unsigned mask = 0;
    std::uint64_t value = 0;
    int arg = 0;
    int width = 32;
    std::uint64_t result = 0;
};

struct Warp {
    unsigned lanes = 0;    // lanes that exist (a partial last warp has fewer)
    unsigned arrived = 0;  // lanes waiting in a collective
    unsigned exited = 0;
    std::uint32_t epoch = 0;  // completed __syncwarp calls, for the race check
};

struct SharedRegion {
    std::size_t offset = 0;
    std::size_t bytes = 0;
    std::string name;  // "dynamic" or "static #n"
};

struct Block {
    const char* kernel = "";
    BlockContext ctx;
    std::vector<SimThread> threads;
    std::vector<Warp> warps;
    int live = 0;
    int at_barrier = 0;
    std::uint64_t epoch = 0;  // block serial << 32 | barriers passed
    bool reshuffle = false;
    // Shared memory: dynamic first, then the static arrays in declaration order.
    unsigned char* shared = nullptr;
    std::size_t shared_capacity = 0;
    std::vector<SharedRegion> regions;
    std::size_t shared_used = 0;
    RaceShadow* shadow = nullptr;
};

/// The block that the running thread belongs to, and that thread.
Block& running_block_state();
SimThread& running_sim_thread();

/// Suspends the running thread until the scheduler resumes it.
void suspend_running_thread();

}  // namespace tessel::sim
