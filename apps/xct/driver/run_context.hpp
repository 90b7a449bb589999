// What the steps of one reconstruction share (reconstruct.cpp runs them in order): the options,
// the ranks, the input's description, the plan, the operator, the volume gathered so far on
// rank 0, timings and counters. One step per file:
//   run_input.cpp        open the input (centre finding), fingerprint, checkpoint to resume
//   run_plan.cpp         memory limit, rank grid, slices per batch, the plan printed
//   run_operator.cpp     orderings, A and Aᵀ (local or distributed)
//   run_direct_fbp.cpp   --solver fbp: no operator, the direct backprojection's setup
//   phantom_sinogram.cpp the phantom's sinograms (with Poisson noise)
//   run_round.cpp        a round: sinograms, stripes, FBP, start, iterations, gather
//   checkpoint_columns.cpp  checkpoints of a round (write) and their columns (resume)
//   run_outputs.cpp      volume, TIFF, previews, saved sinograms, metrics, summary
#pragma once

#include <mpi.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/xct/driver/reconstruct_options.hpp"
#include "apps/xct/driver/run_plan.hpp"
#include "apps/xct/io/checkpoint.hpp"
#include "apps/xct/io/sinogram_source.hpp"
#include "apps/xct/io/volume_sink.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/parallel/parallel.hpp"
#include "apps/xct/parallel/transfer.hpp"
#include "apps/xct/solvers/solver.hpp"
#include "core/backend.hpp"
#include "core/device_warmup.hpp"
#include "core/timer.hpp"

namespace tessel::xct {

template <typename V>
struct RunContext {
    RunContext(const ReconstructOptions& options, MPI_Comm comm, std::ostream& out)
        : o(options), world(comm), log(out), world_rank(comm::rank_of(comm)), world_size(comm::size_of(comm)),
          talk(world_rank == 0 && !options.quiet),
          warmup(options.projector.backend == Backend::cuda && !options.dry_run) {}

    const ReconstructOptions& o;
    MPI_Comm world;
    std::ostream& log;
    const int world_rank, world_size;
    const bool talk;  // rank 0 prints progress
    DeviceWarmup warmup;  // cuda: the context made while the host reads and traces
    PhaseTimes times;
    Timer total_timer;

    // The input (run_input.cpp).
    std::unique_ptr<SinogramSource> source;  // rank 0 only
    InputInfo info;                          // every rank
    nlohmann::json fingerprint;              // what a checkpoint must match
    std::string checkpoint_path;
    std::unique_ptr<Checkpoint<V>> resumed;  // rank 0, while resuming
    long long resume_header[4] = {0, 0, 0, 0};  // round, iteration, width, total iterations

    // The plan and the operator (run_plan.cpp, run_operator.cpp).
    RunPlan plan;
    double limit = 0;
    size_type nnz_bound = 0;
    std::unique_ptr<ParallelLayout> layout;
    Ordering ordering;
    std::unique_ptr<Projector<V>> op;
    std::vector<size_type> pixel_offsets, ray_offsets;
    bool operator_unlogged = false;  // its line waits for the build's last part (log_operator)

    // Rounds (run_round.cpp): each round's slices to the outputs on rank 0, counters.
    std::unique_ptr<VolumeSink> sink;  // rank 0
    std::vector<std::vector<double>> histories;
    std::vector<double> bnorms;
    std::vector<float> saved_sinogram;  // for --save-sinogram and --save-exchange
    int total_iterations = 0;
    size_type iterations_run = 0;
    double iterate_seconds = 0;
    std::vector<double> step_seconds;  // each iteration's own, without the round's set-up and download
    double start_seconds = 0, finish_seconds = 0;  // the rounds' solver starts and final syncs (in iterate)
    SpmmStats stats;  // the SpMMs of the solver (not those that made phantom sinograms)

    const Geometry& g() const { return info.geometry; }
    size_type k() const { return plan.k; }
    size_type width() const { return plan.k * plan.p_batch; }  // slices of one round
    size_type rounds() const { return (info.slices + width() - 1) / width(); }
    bool saving() const { return !o.save_sinogram.empty() || !o.save_exchange.empty(); }

    /// Transfers count as "communicate" with several ranks, as "reorder" on one.
    PhaseTimes::Scope transfer_scope() { return times.scope(world_size > 1 ? "communicate" : "reorder"); }
    /// Rank 0's natural array to every rank's ordered block (pixels or rays), K columns.
    void scatter(const std::vector<V>& natural, DenseMatrix<V>& local, bool pixels) {
        auto scope = transfer_scope();
        scatter_domain(*layout, natural, local, pixels ? pixel_offsets : ray_offsets,
                       pixels ? ordering.pixels : ordering.rays, k());
    }
    /// The inverse: everything in natural order on rank 0 (empty elsewhere).
    std::vector<V> gather(const DenseMatrix<V>& local, bool pixels) {
        auto scope = transfer_scope();
        return gather_domain(*layout, local, pixels ? pixel_offsets : ray_offsets,
                             pixels ? ordering.pixels : ordering.rays);
    }
    /// Runs `step` on rank 0's natural copy of distributed sinograms `m` (steps that need whole
    /// rows of channels), timed as `phase`, and scatters the result back.
    template <typename Step>
    void on_sinograms(DenseMatrix<V>& m, const char* phase, Step&& step) {
        auto natural = gather(m, false);
        on_root(world, [&] {
            auto scope = times.scope(phase);
            step(natural);
        });
        scatter(natural, m, false);
    }
    /// Adds the solver's SpMMs between two readings of op->stats().
    void add_stats(const SpmmStats& before, const SpmmStats& after) {
        stats.forward_calls += after.forward_calls - before.forward_calls;
        stats.backward_calls += after.backward_calls - before.backward_calls;
        stats.forward_seconds += after.forward_seconds - before.forward_seconds;
        stats.backward_seconds += after.backward_seconds - before.backward_seconds;
        stats.flops += after.flops - before.flops;
        stats.bytes += after.bytes - before.bytes;
        stats.communicate_seconds += after.communicate_seconds - before.communicate_seconds;
    }
};

}  // namespace tessel::xct
