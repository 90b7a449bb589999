// What one reconstruction is asked to do (ReconstructOptions: every option of tessel-xct and of
// the library entry points) and what it gives back (ReconstructResult).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/xct/driver/memory_estimate.hpp"
#include "apps/xct/fbp/center_search.hpp"
#include "apps/xct/fbp/fbp_filter.hpp"
#include "apps/xct/io/sinogram_source.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/turn_symmetry.hpp"
#include "apps/xct/solvers/solver.hpp"
#include "core/comm/exchange_executor.hpp"
#include "io/png_writer.hpp"

namespace tessel::xct {

struct ReconstructOptions {
    InputOptions input;
    SolverOptions solver;
    // Beamline steps (docs/xct.md "from the beamline").
    bool fbp = false;         // --solver fbp: the filtered backprojection is the answer
    bool init_fbp = false;    // --init fbp: CGLS/SIRT start from the filtered backprojection
    FbpOptions fbp_options;   // --filter, --filter-cutoff
    bool center_auto = false;             // --center auto (Vo et al. 2014)
    std::optional<size_type> center_slice;  // absolute slice the centre is found on (default: middle)
    std::optional<CenterTrials> center_search;  // --center-search A:B:STEP (gallery in png_dir)
    bool remove_stripes = false;        // --remove-stripes
    bool stripe_sorting = false;        // --stripe-method sorting (Vo et al. 2018); else offsets
    size_type stripe_size = 0;          // sorting: median window across channels (0: 1%, at least 5)
    double stripe_threshold = 9.0;      // offsets: robust standard deviations a stripe stands out
    bool double_precision = false;  // --precision double; mixed is projector.half_values
    DomainOrder order = DomainOrder::hilbert;
    size_type tile = 32;  // Hilbert tile (power of two)
    ProjectorOptions projector;
    // --transpose auto (default): the stored Aᵀ, or A alone with the scatter kernel when A + Aᵀ
    // would need data ranks and A alone fits one (run_plan.cpp); else projector.scatter_transpose.
    bool auto_transpose = true;
    std::string operator_cache;  // --operator-cache DIR: A and Aᵀ reused across runs (operator_cache.hpp)
    // --turn-symmetry: A of half the angles, applied turned (turn_symmetry.hpp); auto when the
    // angles pair up and the half operator fits one rank (run_plan.cpp).
    TurnSymmetry turn_symmetry = TurnSymmetry::automatic;
    // ReconstructResult::volume holds every slice (library callers, tests); tessel-xct's CLI
    // sets false so that rank 0 holds one round and writes the outputs round by round.
    bool keep_volume = true;
    // Ranks: data ranks split A (0: as few as fit in memory), the rest split the slices.
    int data_ranks = 0;
    std::string topology = "flat";
    bool hierarchical = true;
    size_type minibatch = 0;
    bool pipelined = true;
    bool cuda_aware_mpi = false;  // device buffers to MPI when detected (cuda, data ranks)
    comm::ExchangeMethod exchange = comm::ExchangeMethod::point_to_point;
    // Memory: limit per rank in bytes (0: available memory / ranks on the node).
    double memory_limit = 0;
    size_type batch_slices = 0;  // slices per batch on one rank (0: as many as fit)
    bool dry_run = false;
    // Checkpoints.
    std::string checkpoint_path;
    int checkpoint_every = 0;
    bool resume = false;
    int stop_after = 0;  // stop (as if killed) after this many iterations in all; 0: never
    // Outputs.
    std::string output;           // HDF5 volume
    std::string png_dir;
    std::string tiff_dir;         // one 32-bit float TIFF per slice (recon_00042.tiff)
    std::vector<size_type> png_slices;  // absolute slice numbers (empty: the middle one)
    io::Colormap colormap = io::Colormap::gray;
    std::string metrics_path;
    std::string save_sinogram;    // writes <prefix>.sino and <prefix>.theta (raw MemXCT files)
    std::string save_exchange;    // writes an APS Data Exchange file of the sinograms (exchange_writer.hpp)
    std::string command_line;
    bool quiet = false;
    bool verbose = false;
};

/// "single", "double" or "mixed", as --precision says it.
inline const char* precision_name(const ReconstructOptions& o) {
    return o.double_precision ? "double" : (o.projector.half_values ? "mixed" : "single");
}

struct ReconstructResult {
    bool dry_run = false;
    bool stopped = false;  // by stop_after
    InputInfo info;
    MemoryEstimate estimate;
    double memory_limit = 0;
    int p_data = 1, p_batch = 1;
    size_type batch_slices = 1;
    // On world rank 0 only:
    std::vector<float> volume;                    // slices x n x n
    std::vector<std::vector<double>> histories;   // per slice
    std::vector<double> residuals;                // all slices together
    std::vector<double> psnr;                     // phantom: per slice
    int iterations = 0;
    nlohmann::json metrics;
};

/// Runs the reconstruction on every rank of `world` (collective). Progress and summaries go
/// to `log` on rank 0 unless options.quiet. Throws InvalidInput, OutOfMemoryBudget (with what
/// would fit), Hdf5Error, MpiError, app::QuietExit (ranks other than 0 when rank 0 failed).

}  // namespace tessel::xct
