// The plan of a reconstruction: how much memory a rank may use, how many ranks split A (data)
// and the slices (batch), and how many slices one batch holds.
#pragma once

#include <mpi.h>

#include <string>

#include "apps/xct/driver/memory_estimate.hpp"
#include "apps/xct/driver/reconstruct_options.hpp"
#include "apps/xct/io/sinogram_source.hpp"

namespace tessel::xct {

struct RunPlan {
    int p_data = 1, p_batch = 1;
    size_type k = 1;
    bool scatter_transpose = false;  // A alone, Aᵀ by the scatter kernel (asked for or chosen)
    bool turned = false;             // A of half the angles, applied turned (turn_symmetry.hpp)
    std::string turn_why;            // --turn-symmetry auto: why it is on or off
    std::string transpose_why;       // --transpose auto: the choice and its predicted times
    MemoryPlan memory;
    MemoryEstimate estimate;
    std::string does_not_fit;  // why the estimate exceeds the limit (dry runs report it)
};

/// The memory one rank may use: the option, or MemAvailable shared by the ranks of the node
/// (the smallest over the ranks). Collective.
double memory_limit(const ReconstructOptions& o, MPI_Comm world);

/// The estimate's items, one a line, and the total against the limit.
std::string estimate_text(const MemoryEstimate& e, double limit);
/// "data ranks needed for one slice per batch under 14.4 GiB: single 4, mixed (fp16 values) 2,
/// double 8" (min_data_ranks with each precision's value and vector bytes), for --dry-run.
std::string data_ranks_needed(MemoryPlan m, double limit);

/// Picks the data ranks and the slices per batch so that the estimate fits the limit, or throws
/// OutOfMemoryBudget saying what would fit (dry runs get does_not_fit instead).
RunPlan choose_plan(const ReconstructOptions& o, const InputInfo& info, size_type nnz, int ranks, double limit,
                    size_type resume_width);

}  // namespace tessel::xct
