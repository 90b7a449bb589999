// --transpose auto: the stored Aᵀ or the scatter kernel on A, whichever the predicted total time
// (build + iterations) favours, among those that fit one rank.
#pragma once

#include <array>
#include <string>

#include "core/types.hpp"

namespace tessel::xct {

/// Seconds per nonzero of one CGLS iteration (a product with A and one with Aᵀ, and the vector
/// work) at 1, 2, 4, 8, 16 and 32 columns per product: linear between them, and past 32 at the
/// slope from 16 to 32.
struct IterationCurve {
    std::array<double, 6> at{};  // columns 1, 2, 4, 8, 16, 32
    double seconds_per_nonzero(size_type columns) const;
};

/// What --transpose auto predicts with: the build per nonzero (the trace; the transpose added
/// for a stored Aᵀ), an iteration of each form per nonzero, and the scatter kernel's sums: each
/// thread adds into its own copy of Aᵀ·y, zeroed and summed every product, so that part grows
/// with the threads and the image (seconds per pixel and column of one iteration).
struct TransposeRates {
    double trace = 0, transpose = 0;
    IterationCurve stored, scatter;
    double scatter_sums = 0;
};

/// The cpu rates for `threads` threads, from the reference machine's (vm-epyc, 2 threads;
/// docs/BENCHMARKS.md "xct: the transpose choice"): the build and the iterations spread over the
/// threads, the scatter kernel's sums past two threads at 8 bytes a pixel, column and thread
/// (zeroed, then read) and about 20 GB/s (what an H200 machine's 16 host cores gave it).
TransposeRates cpu_transpose_rates(int threads);
/// The same for --backend cuda: the iterations at the device's rates (measured on an H200,
/// docs/BENCHMARKS.md "GPU": 16 slices of 512² x 750, turned, 4.2 ms per 16-column pass stored
/// and 11.4 ms scatter, whatever the columns up to 16), the build at the reference's host rates
/// spread over `host_threads`, of the transpose only the layout's share (the device makes the slots).
TransposeRates device_transpose_rates(int host_threads);

/// Forms whose operator is already in the --operator-cache folder: they cost no build.
struct CachedForms {
    bool stored = false, scatter = false;
    bool folder = false;  // an --operator-cache folder is given: the form built now serves later runs
};

/// The run the forms are predicted for: A's nonzeros and columns (the image's pixels), the
/// iterations per round and the columns of each product (the slices of a batch group; twice
/// that for a turned pair).
struct TransposeWork {
    size_type nnz = 0, pixels = 0;
    int iterations = 0;
    size_type columns = 1;
};

struct TransposeChoice {
    bool scatter = false;
    double stored_seconds = 0, scatter_seconds = 0;  // predicted build + iterations (0: does not fit)
    std::string why;  // one line for the plan and --dry-run
};

/// Predicts both forms' build + iterations (a cached form costs its iterations only) and picks
/// the faster of those that fit; neither fitting leaves stored (data ranks split A + Aᵀ). An
/// empty cache folder is filled for the runs that will load it, so there the faster iterations
/// decide (the stored Aᵀ, when it fits), not this run's build.
TransposeChoice choose_transpose(const TransposeWork& work, bool stored_fits, bool scatter_fits,
                                 const CachedForms& cached, const TransposeRates& rates);

}  // namespace tessel::xct
