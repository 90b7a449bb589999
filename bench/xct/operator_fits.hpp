// The memory check of the benchmarks that build xct's A and Aᵀ for a geometry (bench/xct).
#pragma once

#include <cstdio>

#include "apps/xct/driver/memory_estimate.hpp"
#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/system_matrix.hpp"
#include "core/metrics.hpp"

namespace tessel::xct::bench {

/// False (with one line naming `program`) when A and Aᵀ of `g` would not fit 90 % of the
/// available memory.
inline bool operator_fits(const Geometry& g, const char* program) {
    MemoryPlan plan;
    plan.nnz = estimate_nnz(g);
    plan.pixels = g.num_pixels();
    plan.rays = g.num_rays();
    plan.slices = plan.round_slices = 0;
    const double need = estimate_memory(plan).total(), available = available_memory();
    if (!(available > 0 && need > 0.9 * available)) return true;
    std::fprintf(stderr, "%s: %lld^2 x %lld angles needs about %s for A and A^T, %s available\n", program,
                 static_cast<long long>(g.n), static_cast<long long>(g.num_theta()), format_bytes(need).c_str(),
                 format_bytes(available).c_str());
    return false;
}

}  // namespace tessel::xct::bench
