// The first block of a run on one device, timed by events: when B is made (made on the device:
// the first part's B; else all of it, and C zeroed where it is), the first and the last part of
// A are up (after the last, the link carries C alone), the first C tile starts down, the last
// GEMM ends and the last C tile is down, in seconds from the block's start. Where the
// executor's time goes, without a profiler: the GEMMs against the copies that bound them (C down
// at the link's rate).
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "apps/ccsd_abcd/executor/block_timeline.hpp needs a build with the CUDA backend"
#endif

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>

#include "apps/ccsd_abcd/executor/executor.hpp"
#include "core/cuda/runtime/stream.hpp"

namespace tessel::abcd {

class BlockTimeline {
public:
    /// The marks; the end of compute stream s is mark `points + s`.
    enum Point { start, b_made, first_a_part_up, last_a_part_up, first_c_down, c_down_done, points };

    explicit BlockTimeline(int streams) : streams_(streams) {}

    /// Times the next block (the first of a run): every point recorded once from here.
    void arm() {
        armed_ = true;
        recorded_.fill(false);
        ended_ = false;
    }
    /// Point p reached on `stream` (kept only the first time in the timed block).
    void mark(Point p, cudaStream_t stream) {
        if (!armed_ || recorded_[p]) return;
        marks_.record(p, stream);
        recorded_[p] = true;
    }
    /// Point p reached on `stream` (kept the last time in the timed block).
    void mark_again(Point p, cudaStream_t stream) {
        if (!armed_) return;
        marks_.record(p, stream);
        recorded_[p] = true;
    }
    /// The block's GEMMs on compute stream s end here; the block's timing ends with it.
    void mark_gemms_done(int s, cudaStream_t stream) {
        if (!armed_) return;
        marks_.record(points + static_cast<std::size_t>(s), stream);
        ended_ = true;
    }
    /// No more points after the timed block.
    void disarm() { armed_ = false; }

    /// Seconds from the start to each point (0 where not recorded); the events must be reached
    /// (after a device-wide wait).
    ExecutionResult::DeviceTimeline read() const {
        ExecutionResult::DeviceTimeline t;
        if (!recorded_[start]) return t;
        auto at = [&](Point p) { return recorded_[p] ? marks_.seconds(start, p) : 0.0; };
        t.b_made = at(b_made);
        t.first_a_part_up = at(first_a_part_up);
        t.last_a_part_up = at(last_a_part_up);
        t.first_c_down = at(first_c_down);
        t.c_down_done = at(c_down_done);
        if (ended_)
            for (int s = 0; s < streams_; ++s)
                t.gemms_done = std::max(t.gemms_done, marks_.seconds(start, points + static_cast<std::size_t>(s)));
        return t;
    }

private:
    int streams_;
    cuda::EventMarks marks_;
    std::array<bool, points> recorded_{};
    bool armed_ = false, ended_ = false;
};

}  // namespace tessel::abcd
