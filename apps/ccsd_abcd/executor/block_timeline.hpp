// The first block of a run on one device, timed by events: when B is made and C zeroed, the
// first part of A is up, the first C tile starts down, the last GEMM ends and the last C tile
// is down, in seconds from the block's start. Where the executor's time goes, without a
// profiler: the GEMMs against the copies that bound them (C down at the link's rate).
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "apps/ccsd_abcd/executor/block_timeline.hpp needs a build with the CUDA backend"
#endif

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <vector>

#include "apps/ccsd_abcd/executor/executor.hpp"
#include "core/cuda/runtime/cuda_check.hpp"

namespace tessel::abcd {

class BlockTimeline {
public:
    enum Point { start, b_made, first_a_part_up, first_c_down, c_down_done, points };

    /// Timing events for the points and for the end of each of `streams` compute streams.
    explicit BlockTimeline(int streams) : gemms_done_(static_cast<std::size_t>(streams), nullptr) {
        for (auto& e : events_) TESSEL_CUDA_CHECK(cudaEventCreate(&e));
        for (auto& e : gemms_done_) TESSEL_CUDA_CHECK(cudaEventCreate(&e));
    }
    ~BlockTimeline() {
        for (auto e : events_) cudaEventDestroy(e);
        for (auto e : gemms_done_) cudaEventDestroy(e);
    }
    BlockTimeline(const BlockTimeline&) = delete;
    BlockTimeline& operator=(const BlockTimeline&) = delete;

    /// Times the next block (the first of a run): every point recorded once from here.
    void arm() {
        armed_ = true;
        recorded_.fill(false);
        ended_ = false;
    }
    /// Point p reached on `stream` (kept only the first time in the timed block).
    void mark(Point p, cudaStream_t stream) {
        if (!armed_ || recorded_[p]) return;
        TESSEL_CUDA_CHECK(cudaEventRecord(events_[p], stream));
        recorded_[p] = true;
    }
    /// The block's GEMMs on compute stream s end here; the block's timing ends with it.
    void mark_gemms_done(int s, cudaStream_t stream) {
        if (!armed_) return;
        TESSEL_CUDA_CHECK(cudaEventRecord(gemms_done_[static_cast<std::size_t>(s)], stream));
        ended_ = true;
    }
    /// No more points after the timed block.
    void disarm() { armed_ = false; }

    /// Seconds from the start to each point (0 where not recorded); the events must be reached
    /// (after a device-wide wait).
    ExecutionResult::DeviceTimeline read() const {
        ExecutionResult::DeviceTimeline t;
        if (!recorded_[start]) return t;
        auto since_start = [&](cudaEvent_t e) {
            float ms = 0;
            TESSEL_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[start], e));
            return 1e-3 * double(ms);
        };
        auto at = [&](Point p) { return recorded_[p] ? since_start(events_[p]) : 0.0; };
        t.b_made = at(b_made);
        t.first_a_part_up = at(first_a_part_up);
        t.first_c_down = at(first_c_down);
        t.c_down_done = at(c_down_done);
        if (ended_)
            for (auto e : gemms_done_) t.gemms_done = std::max(t.gemms_done, since_start(e));
        return t;
    }

private:
    std::array<cudaEvent_t, points> events_{};
    std::array<bool, points> recorded_{};
    std::vector<cudaEvent_t> gemms_done_;
    bool armed_ = false, ended_ = false;
};

}  // namespace tessel::abcd
