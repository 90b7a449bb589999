// Warp collectives among fibers: each lane named in the mask deposits its value and waits; the
// last to arrive checks that all agree (same collective, same mask), computes every lane's
// result and wakes them. A lane in the mask that has exited or does not exist is a fault.
#include <cstdio>
#include <string>

#include "core/cuda/sim/execution/block.hpp"
#include "core/cuda/sim/runtime/fault.hpp"

namespace tessel::sim {

namespace {

const char* op_name(WarpOp op) {
    switch (op) {
    case WarpOp::sync: return "__syncwarp";
    case WarpOp::shfl: return "__shfl_sync";
    case WarpOp::shfl_up: return "__shfl_up_sync";
    case WarpOp::shfl_down: return "__shfl_down_sync";
    case WarpOp::shfl_xor: return "__shfl_xor_sync";
    case WarpOp::ballot: return "__ballot_sync";
    case WarpOp::any: return "__any_sync";
    case WarpOp::all: return "__all_sync";
    case WarpOp::reduce_add: return "__reduce_add_sync";
    case WarpOp::reduce_min: return "__reduce_min_sync";
    case WarpOp::reduce_max: return "__reduce_max_sync";
    case WarpOp::reduce_and: return "__reduce_and_sync";
    case WarpOp::reduce_or: return "__reduce_or_sync";
    case WarpOp::reduce_xor: return "__reduce_xor_sync";
    case WarpOp::match_any: return "__match_any_sync";
    }
    return "?";
}

std::string hex(unsigned mask) {
    char s[16];
    std::snprintf(s, sizeof s, "0x%08x", mask);
    return s;
}

void check_arrival(const Warp& w, int lane, WarpOp op, unsigned mask, int width) {
    if (!(mask >> lane & 1))
        fault(cudaErrorLaunchFailure, std::string(op_name(op)) + " with mask " + hex(mask) + " in lane " +
                                          std::to_string(lane) + ", which the mask does not name");
    if (mask & ~w.lanes)
        fault(cudaErrorLaunchFailure, std::string(op_name(op)) + " with mask " + hex(mask) +
                                          " names lanes that this warp does not have (" + hex(w.lanes) + ")");
    if (mask & w.exited)
        fault(cudaErrorLaunchFailure, std::string(op_name(op)) + " with mask " + hex(mask) +
                                          " waits for lanes that have exited (" + hex(mask & w.exited) +
                                          "): they never arrive");
    if (width < 1 || width > 32 || (width & (width - 1)) != 0)
        fault(cudaErrorLaunchFailure, std::string(op_name(op)) + " with width " + std::to_string(width) +
                                          ", which is not a power of two up to 32");
}

// The lane whose value `lane` receives, or `lane` itself where the shuffle keeps it.
int source_lane(const SimThread& t, int lane) {
    const int segment = lane & ~(t.width - 1), within = lane - segment;
    switch (t.op) {
    case WarpOp::shfl: return segment + (t.arg & (t.width - 1));
    case WarpOp::shfl_up: return within >= t.arg ? lane - t.arg : lane;
    case WarpOp::shfl_down: return within + t.arg < t.width ? lane + t.arg : lane;
    case WarpOp::shfl_xor: {
        const int src = lane ^ t.arg;
        return (src & ~(t.width - 1)) == segment ? src : lane;
    }
    default: return lane;
    }
}

bool is_reduction(WarpOp op) {
    return op == WarpOp::reduce_add || op == WarpOp::reduce_min || op == WarpOp::reduce_max ||
           op == WarpOp::reduce_and || op == WarpOp::reduce_or || op == WarpOp::reduce_xor;
}

// The reduction of the 32-bit values of the lanes in `mask` (signed where `as_signed`).
std::uint64_t reduce(const SimThread* lanes, unsigned mask, WarpOp op, bool as_signed) {
    std::int64_t acc = 0;
    bool first = true;
    for (int l = 0; l < 32; ++l) {
        if (!(mask >> l & 1)) continue;
        const auto bits = static_cast<std::uint32_t>(lanes[l].value);
        const std::int64_t v = as_signed ? std::int64_t(std::int32_t(bits)) : std::int64_t(bits);
        if (first) {
            acc = v;
            first = false;
            continue;
        }
        switch (op) {
        case WarpOp::reduce_add: acc += v; break;
        case WarpOp::reduce_min: acc = v < acc ? v : acc; break;
        case WarpOp::reduce_max: acc = v > acc ? v : acc; break;
        case WarpOp::reduce_and: acc &= v; break;
        case WarpOp::reduce_or: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    return static_cast<std::uint32_t>(acc);  // 32 bits, as the instruction gives them
}

// The lanes of `mask` whose value equals lane l's.
unsigned same_value(const SimThread* lanes, unsigned mask, int l) {
    unsigned same = 0;
    for (int o = 0; o < 32; ++o)
        if ((mask >> o & 1) && lanes[o].value == lanes[l].value) same |= 1u << o;
    return same;
}

void complete(Block& b, Warp& w, int warp, const SimThread& last) {
    const unsigned mask = last.mask;
    SimThread* lanes = &b.threads[std::size_t(warp) * 32];
    unsigned votes = 0;
    for (int l = 0; l < 32; ++l) {
        if (!(mask >> l & 1)) continue;
        if (lanes[l].op != last.op || lanes[l].mask != mask)
            fault(cudaErrorLaunchFailure, "lane " + std::to_string(l) + " waits in " + op_name(lanes[l].op) +
                                              " with mask " + hex(lanes[l].mask) + " while lane " +
                                              std::to_string(last.ctx.lane) + " is in " + op_name(last.op) +
                                              " with mask " + hex(mask));
        if (lanes[l].value) votes |= 1u << l;
    }
    const std::uint64_t reduced = is_reduction(last.op) ? reduce(lanes, mask, last.op, last.arg == 1) : 0;
    for (int l = 0; l < 32; ++l) {
        if (!(mask >> l & 1)) continue;
        SimThread& t = lanes[l];
        if (is_reduction(t.op)) {
            t.result = reduced;
            if (&t != &last) t.state = ThreadState::runnable;
            continue;
        }
        switch (t.op) {
        case WarpOp::match_any: t.result = same_value(lanes, mask, l); break;
        case WarpOp::ballot: t.result = votes; break;
        case WarpOp::any: t.result = votes != 0; break;
        case WarpOp::all: t.result = votes == mask; break;
        case WarpOp::sync: t.result = 0; break;
        default: {
            const int src = source_lane(t, l);
            if (!(mask >> src & 1))
                fault(cudaErrorLaunchFailure, std::string(op_name(t.op)) + ": lane " + std::to_string(l) +
                                                  " reads lane " + std::to_string(src) + ", which mask " + hex(mask) +
                                                  " does not name (its value is undefined on a GPU)");
            t.result = lanes[src].value;
        }
        }
        if (&t != &last) t.state = ThreadState::runnable;
    }
    w.arrived &= ~mask;
    if (last.op == WarpOp::sync) ++w.epoch;
}

}  // namespace

std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width) {
    Block& b = running_block_state();
    SimThread& t = running_sim_thread();
    Warp& w = b.warps[t.ctx.warp];
    check_arrival(w, t.ctx.lane, op, mask, width);
    t.op = op;
    t.mask = mask;
    t.value = value;
    t.arg = arg;
    t.width = width;
    w.arrived |= 1u << t.ctx.lane;
    if ((w.arrived & mask) == mask) {
        complete(b, w, t.ctx.warp, t);
        return t.result;
    }
    t.state = ThreadState::at_warp;
    suspend_running_thread();
    return t.result;
}

unsigned active_lanes() {
    const Warp& w = running_block_state().warps[running_sim_thread().ctx.warp];
    return w.lanes & ~w.exited;
}

}  // namespace tessel::sim
