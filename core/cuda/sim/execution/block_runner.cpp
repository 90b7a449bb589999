// The block scheduler: every thread is a fiber; the scheduler resumes the runnable ones in a
// shuffled order until each has ended, waits in __syncthreads or in a warp collective. The
// last thread to arrive at a barrier releases it; no runnable thread left is a deadlock.
#include "core/cuda/sim/execution/block_runner.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <numeric>
#include <random>

#include "core/cuda/sim/execution/block.hpp"
#include "core/cuda/sim/execution/fiber_stacks.hpp"
#include "core/cuda/sim/runtime/fault.hpp"

namespace tessel::sim {

thread_local ThreadContext* running_thread = nullptr;
thread_local BlockContext* running_block = nullptr;

namespace {

thread_local Block* current_block_state = nullptr;
thread_local SimThread* current_sim_thread = nullptr;

constexpr std::size_t stack_bytes = 256 * 1024;
constexpr std::size_t max_static_shared = 48 * 1024;

std::atomic<std::uint64_t> block_serial{0};

// What one host thread keeps from block to block: stacks, shared memory, the race shadow.
struct HostThreadState {
    StackPool stacks{stack_bytes};
    std::vector<unsigned char> shared;
    RaceShadow shadow;
    Block block;
};

HostThreadState& host_state() {
    thread_local HostThreadState state;
    return state;
}

std::string dim_string(const uint3& d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

void set_up_threads(Block& b, const BlockJob& job) {
    const int n = int(job.block.x * job.block.y * job.block.z);
    b.threads.clear();
    b.threads.resize(n);
    b.warps.assign((n + 31) / 32, Warp{});
    for (int i = 0; i < n; ++i) {
        SimThread& t = b.threads[i];
        t.ctx.linear = i;
        t.ctx.thread_idx = {unsigned(i) % job.block.x, unsigned(i) / job.block.x % job.block.y,
                            unsigned(i) / (job.block.x * job.block.y)};
        t.ctx.lane = i % 32;
        t.ctx.warp = i / 32;
        b.warps[i / 32].lanes |= 1u << (i % 32);
    }
    b.live = n;
    b.at_barrier = 0;
    b.epoch = (block_serial.fetch_add(1) + 1) << 32;
    b.reshuffle = false;
}

void set_up_shared(Block& b, HostThreadState& hs, std::size_t dynamic) {
    b.shared_capacity = dynamic + max_static_shared;
    if (hs.shared.size() < b.shared_capacity) hs.shared.resize(b.shared_capacity);
    b.shared = hs.shared.data();
    // Shared memory starts as garbage on a GPU: NaN bytes make a read before a write show.
    std::fill_n(b.shared, b.shared_capacity, static_cast<unsigned char>(0xff));
    b.regions.assign(1, SharedRegion{0, dynamic, "dynamic shared memory"});
    b.shared_used = (dynamic + 15) / 16 * 16;
    hs.shadow.reserve(b.shared_capacity);
    b.shadow = &hs.shadow;
}

void exit_thread(Block& b, SimThread& t);

void start_fiber(Block& b, SimThread& t, HostThreadState& hs, const BlockJob& job, std::exception_ptr& failure) {
    t.fiber = boost::context::fiber(
        std::allocator_arg, PooledStack{&hs.stacks},
        [&b, &t, &job, &failure](boost::context::fiber&& caller) {
            t.caller = std::move(caller);
            try {
                (*job.body)();
            } catch (const boost::context::detail::forced_unwind&) {
                throw;
            } catch (...) {
                if (!failure) failure = std::current_exception();
            }
            try {
                exit_thread(b, t);
            } catch (...) {
                if (!failure) failure = std::current_exception();
            }
            return std::move(t.caller);
        });
}

void resume(SimThread& t, Block& b) {
    running_thread = &t.ctx;
    current_sim_thread = &t;
    current_block_state = &b;
    t.fiber = std::move(t.fiber).resume();
    running_thread = nullptr;
    current_sim_thread = nullptr;
}

std::string deadlock_message(const Block& b) {
    int at_barrier = 0, at_warp = 0;
    int example = -1;
    for (const SimThread& t : b.threads) {
        if (t.state == ThreadState::at_barrier) ++at_barrier;
        if (t.state == ThreadState::at_warp) {
            ++at_warp;
            if (example < 0) example = t.ctx.linear;
        }
    }
    std::string m = "deadlock in kernel " + std::string(b.kernel) + ", block " + dim_string(b.ctx.block_idx) + ": " +
                    std::to_string(at_barrier) + " threads wait in __syncthreads, " + std::to_string(at_warp) +
                    " in warp collectives";
    if (example >= 0) {
        const SimThread& t = b.threads[example];
        char mask[16];
        std::snprintf(mask, sizeof mask, "0x%08x", t.mask);
        m += " (thread " + std::to_string(example) + " waits with mask " + mask +
             " for lanes that are in __syncthreads)";
    }
    return m;
}

void schedule(Block& b, const BlockJob& job, std::exception_ptr& failure) {
    std::vector<int> order(b.threads.size());
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(job.seed);
    std::shuffle(order.begin(), order.end(), rng);
    while (b.live > 0 && !failure) {
        if (b.reshuffle) {
            std::shuffle(order.begin(), order.end(), rng);
            b.reshuffle = false;
        }
        bool ran = false;
        for (int i : order) {
            if (failure) break;
            SimThread& t = b.threads[i];
            if (t.state != ThreadState::runnable) continue;
            resume(t, b);
            ran = true;
        }
        if (!ran && b.live > 0 && !failure)
            failure = std::make_exception_ptr(Fault(cudaErrorLaunchFailure, deadlock_message(b)));
    }
}

void release_barrier(Block& b, const SimThread& last) {
    for (SimThread& t : b.threads) {
        if (t.state != ThreadState::at_barrier) continue;
        if (t.barrier_site != last.barrier_site)
            fault(cudaErrorLaunchFailure, "threads " + std::to_string(t.ctx.linear) + " and " +
                                              std::to_string(last.ctx.linear) +
                                              " wait in different __syncthreads calls (a barrier in divergent code)");
        t.state = ThreadState::runnable;
    }
    b.at_barrier = 0;
    ++b.epoch;
    for (Warp& w : b.warps) ++w.epoch;
    b.reshuffle = true;
}

void check_lane_exit(Block& b, const SimThread& t) {
    const Warp& w = b.warps[t.ctx.warp];
    for (int lane = 0; lane < 32; ++lane) {
        if (!(w.arrived >> lane & 1)) continue;
        const SimThread& waiting = b.threads[t.ctx.warp * 32 + lane];
        if (waiting.mask >> t.ctx.lane & 1)
            throw Fault(cudaErrorLaunchFailure,
                        "kernel " + std::string(b.kernel) + ", block " + dim_string(b.ctx.block_idx) + ": lane " +
                            std::to_string(t.ctx.lane) + " of warp " + std::to_string(t.ctx.warp) +
                            " exits while lane " + std::to_string(lane) +
                            " waits for it in a warp collective whose mask names it: it never arrives");
    }
}

void exit_thread(Block& b, SimThread& t) {
    t.state = ThreadState::done;
    --b.live;
    b.warps[t.ctx.warp].exited |= 1u << t.ctx.lane;
    check_lane_exit(b, t);
    if (b.at_barrier > 0 && b.at_barrier == b.live) {
        // Exited threads count as arrived: the last one out releases the barrier.
        SimThread* waiting = nullptr;
        for (SimThread& s : b.threads)
            if (s.state == ThreadState::at_barrier) waiting = &s;
        release_barrier(b, *waiting);
    }
}

}  // namespace

Block& running_block_state() { return *current_block_state; }
SimThread& running_sim_thread() { return *current_sim_thread; }

void suspend_running_thread() {
    SimThread& t = *current_sim_thread;
    t.caller = std::move(t.caller).resume();  // back when the scheduler resumes this thread
}

std::string where() {
    if (current_sim_thread == nullptr) return "";
    const Block& b = *current_block_state;
    return "kernel " + std::string(b.kernel) + ", block " + dim_string(b.ctx.block_idx) + ", thread " +
           dim_string(current_sim_thread->ctx.thread_idx);
}

bool race_check_enabled() {
    static const bool enabled = [] {
        const char* v = std::getenv("TESSEL_SIM_RACECHECK");
        return v == nullptr || std::string(v) != "0";
    }();
    return enabled;
}

void block_barrier() {
    Block& b = *current_block_state;
    SimThread& t = *current_sim_thread;
    t.barrier_site = __builtin_return_address(0);
    ++b.at_barrier;
    if (b.at_barrier == b.live) {
        t.state = ThreadState::at_barrier;
        release_barrier(b, t);
        return;
    }
    t.state = ThreadState::at_barrier;
    suspend_running_thread();
}

void yield_thread() {
    current_sim_thread->state = ThreadState::runnable;
    suspend_running_thread();
}

void* dynamic_shared_memory() { return current_block_state->shared; }

void* static_shared_memory(std::size_t bytes, std::size_t alignment) {
    Block& b = *current_block_state;
    const std::size_t index = 1 + std::size_t(current_sim_thread->static_declarations++);
    if (index < b.regions.size()) return b.shared + b.regions[index].offset;
    const std::size_t align = std::max<std::size_t>(alignment, 16);
    const std::size_t offset = (b.shared_used + align - 1) / align * align;
    const std::size_t static_total = offset + bytes - b.regions[0].bytes;
    if (offset + bytes > b.shared_capacity || static_total > max_static_shared)
        fault(cudaErrorLaunchOutOfResources, "static shared memory of " + std::to_string(static_total) +
                                                 " bytes is over the 48 KiB a block may declare");
    b.regions.push_back(SharedRegion{offset, bytes, "static shared array #" + std::to_string(index - 1)});
    b.shared_used = offset + bytes;
    return b.shared + offset;
}

void run_block(const BlockJob& job) {
    HostThreadState& hs = host_state();
    Block& b = hs.block;
    b.kernel = job.kernel;
    b.ctx = BlockContext{job.block_idx, job.block, job.grid};
    set_up_threads(b, job);
    set_up_shared(b, hs, job.dynamic_shared);
    running_block = &b.ctx;
    std::exception_ptr failure;
    for (SimThread& t : b.threads) start_fiber(b, t, hs, job, failure);
    schedule(b, job, failure);
    for (SimThread& t : b.threads) t.fiber = {};  // unwinds the threads a fault left suspended
    running_block = nullptr;
    if (failure) std::rethrow_exception(failure);
}

}  // namespace tessel::sim
