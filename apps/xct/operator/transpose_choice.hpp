// --transpose auto: the stored Aᵀ or the scatter kernel on A, whichever the predicted total time
// (build + iterations) favours, among those that fit one rank.
#pragma once

#include <string>

#include "apps/xct/geometry/geometry.hpp"
#include "core/types.hpp"

namespace tessel::xct {

/// Seconds per nonzero of A measured on the reference run (docs/BENCHMARKS.md "xct: first
/// image": 512² x 750, 2 threads, vm-epyc, commit f2beb5d, memory warm): the build is 2.47 s
/// with scatter (the trace alone) and 7.1 s stored (trace + transpose); one K = 1 CGLS
/// iteration is 0.089 s stored and 0.144 s scatter. Divided by estimate_nnz of that geometry, so that a
/// run's prediction scales with its own estimate_nnz.
struct TransposeRates {
    double trace = 0, transpose = 0, iteration_stored = 0, iteration_scatter = 0;
};
TransposeRates reference_transpose_rates();
/// The same for --backend cuda: the iterations at the device's rates (measured on an H200,
/// docs/BENCHMARKS.md "GPU": 16 slices of 512² x 750, turned, 4.2 ms per 16-slice pass stored and
/// 11.4 ms scatter), the build at the reference's host rates spread over `host_threads` (the
/// reference ran on 2), of the transpose only the layout's share (the device makes the slots).
TransposeRates device_transpose_rates(int host_threads);

/// Forms whose operator is already in the --operator-cache folder: they cost no build.
struct CachedForms {
    bool stored = false, scatter = false;
    bool folder = false;  // an --operator-cache folder is given: the form built now serves later runs
};

struct TransposeChoice {
    bool scatter = false;
    double stored_seconds = 0, scatter_seconds = 0;  // predicted build + iterations (0: does not fit)
    std::string why;  // one line for the plan and --dry-run
};

/// Predicts both forms for nnz nonzeros, `iterations` per round and `slices` per batch group:
/// an iteration costs the K = 1 time for up to 16 slices side by side and grows linearly
/// beyond (an earlier 512² x 750 run: 0.236 s at K = 1, 0.261 s at K = 16), so the iterations
/// cost iterations x ceil(slices / 16) K = 1 iterations; a cached form costs its iterations
/// only. Picks the faster of those that fit; neither fitting leaves stored (data ranks split
/// A + Aᵀ). An empty cache folder is filled for the runs that will load it, so there the
/// faster iterations decide (the stored Aᵀ, when it fits), not this run's build.
TransposeChoice choose_transpose(size_type nnz, int iterations, size_type slices, bool stored_fits, bool scatter_fits,
                                 const CachedForms& cached = {},
                                 const TransposeRates& rates = reference_transpose_rates());

}  // namespace tessel::xct
