// What a reconstruction will hold in memory, estimated before anything is built, and what
// would fit under a limit.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/solvers/solver.hpp"

namespace tessel::xct {

/// The inputs of the estimate.
struct MemoryPlan {
    size_type nnz = 0;            // nonzeros of A (an upper bound from estimate_nnz)
    size_type pixels = 0, rays = 0;
    size_type value_bytes = 4;    // the solver's vectors: float or double
    size_type stored_value_bytes = 0;  // a value in the finished operator (2: mixed; 0: value_bytes)
    bool hilbert = true;          // Hilbert order (less padding, more reuse than natural)
    Kernel kernel = Kernel::tiled_ell;
    bool scatter_transpose = false;  // --transpose scatter: A only (one data rank), per-thread sums
    bool turned = false;          // --turn-symmetry: A of half the angles on 2K columns (nnz is the half's)
    int threads = 1;              // OpenMP threads (the scatter kernel's sums, one n x K each)
    int p_data = 1;               // data ranks sharing A
    size_type k = 1;              // slices per batch on one rank
    size_type slices = 1;         // all slices
    bool keep_volume = true;      // rank 0 holds every slice (library callers); else one round
    size_type round_slices = 1;   // slices of one round on rank 0 (all batch groups)
    size_type input_bytes_per_slice = 0;  // raw projections + flats read on rank 0 per slice
    bool checkpoint = false;
    size_type row_groups = 1;     // --row-groups: A's and Aᵀ's groups made on the host during the build
};

/// Bytes per item on the busiest rank (rank 0), and the peak while building.
struct MemoryEstimate {
    std::vector<std::pair<std::string, double>> items;
    double matrices = 0;   // A and Aᵀ as they stay during the iterations
    double build_peak = 0; // the largest moment of the build
    double vectors = 0;    // solver vectors and SpMM buffers
    double rank0 = 0;      // inputs of one round, the volume, gathered state
    double process = 0;    // the process before any data (libraries: MPI, HDF5, CUDA runtime)
    double total() const;  // max(build_peak, matrices + vectors) + rank0 + process
};

/// Padding of tiled ELL and staged map entries per nonzero (1 / average reuse) assumed with
/// the default tiles, measured on the MemXCT geometries (docs/BENCHMARKS.md, "Iterations
/// against scikit-image"): Hilbert order 7-8 % padding and reuse 13-16; natural order up to 21 % and 1.3-2.
inline constexpr double assumed_padding = 0.08, assumed_padding_natural = 0.21;
inline constexpr double assumed_map = 0.08, assumed_map_natural = 0.8;
/// Nonzeros per slot of row groups assumed for the build's peak (measured 0.96-2.04 on 256² x
/// 375 for groups of 2-8, docs/BENCHMARKS.md): one, the low end.
inline constexpr double assumed_group_entries_per_slot = 1.0;
/// Resident memory of the process before any data (measured 263 MiB for tessel-xct while it linked
/// cuBLAS; a cpu run of a CUDA build now holds about 27 MiB, cuBLAS loaded at first use: kept as
/// the bound for a cuda run's runtime and context).
inline constexpr double process_bytes = 272.0 * 1024 * 1024;

MemoryEstimate estimate_memory(const MemoryPlan& plan);

/// The largest k (slices per batch per rank) whose estimate fits `limit` bytes (0 if none).
size_type max_batch_slices(MemoryPlan plan, double limit);
/// The smallest number of data ranks (up to `max_ranks`) with k = 1 that fits, or 0 if none.
int min_data_ranks(MemoryPlan plan, double limit, int max_ranks = 4096);

/// Available memory of this node (MemAvailable of /proc/meminfo), in bytes; 0 if unknown.
double available_memory();

/// "12.3 GiB", "850 MiB".
std::string format_bytes(double bytes);
/// Parses "8G", "512M", "1.5GiB", "100000" (bytes). Throws InvalidInput.
double parse_bytes(const std::string& text);

}  // namespace tessel::xct
