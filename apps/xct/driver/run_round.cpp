// Step 5 of a reconstruction, once per round of slices: the sinograms (phantom or file), stripe
// removal, the filtered backprojection, the solver's start (fresh, from FBP, or the
// checkpoint's), the iterations (progress, checkpoints, --stop-after), the round's images and
// histories to rank 0.
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "apps/xct/driver/checkpoint_columns.hpp"
#include "apps/xct/driver/log_text.hpp"
#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"
#include "apps/xct/fbp/direct_backprojection.hpp"
#include "apps/xct/fbp/fbp_filter.hpp"
#include "apps/xct/preprocessing/stripe_removal.hpp"
#include "apps/xct/solvers/column_ops.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/device_traffic.hpp"

namespace tessel::xct {

namespace {

// The file's sinograms of slices [first, first + count) on rank 0, slice after slice, padded
// with zero slices to the round's width; kept for --save-sinogram.
template <typename V>
std::vector<V> read_natural(RunContext<V>& c, size_type first, size_type count) {
    size_type clamped = 0;
    const auto sino = c.source->read(first, count, c.times, clamped);
    if (clamped > 0)
        std::fprintf(stderr,
                     "tessel-xct: warning: %lld values of slices %lld:%lld were not positive after flat/dark "
                     "normalisation and were clamped to 1e-6 before -log\n",
                     static_cast<long long>(clamped), static_cast<long long>(c.info.first_slice + first),
                     static_cast<long long>(c.info.first_slice + first + count));
    if (c.saving()) c.saved_sinogram.insert(c.saved_sinogram.end(), sino.begin(), sino.end());
    const std::size_t size = static_cast<std::size_t>(c.width() * c.g().num_rays());
    if constexpr (std::is_same_v<V, float>) {
        if (sino.size() == size) return sino;
    }
    std::vector<V> natural(size, V{0});
    std::copy(sino.begin(), sino.end(), natural.begin());
    return natural;
}

// b := the file's sinograms of slices [first, first + count), read and preprocessed on rank 0.
template <typename V>
void file_sinograms(RunContext<V>& c, size_type first, size_type count, DenseMatrix<V>& b) {
    std::vector<V> natural;
    on_root(c.world, [&] { natural = read_natural(c, first, count); });
    c.scatter(natural, b, false);
}

// --solver fbp: the rows filtered on rank 0 in natural order, then core's backprojection on the
// backend asked for (no operator was built: run_direct_fbp.cpp). With one rank it reads the
// natural array itself (slice after slice), with no copy into ray order; with several, each
// rank backprojects its own slices.
template <typename V>
DenseMatrix<V> direct_fbp(RunContext<V>& c, const DenseMatrix<V>& b) {
    const Geometry& g = c.g();
    auto natural = c.gather(b, false);
    on_root(c.world, [&] {
        auto scope = c.times.scope("fbp");
        fbp_filter_rows<V>(natural, c.width() * g.num_theta(), g.num_rho, g.theta, c.o.fbp_options);
    });
    DenseMatrix<V> filtered, x(g.num_pixels(), c.k());
    DenseView<const V> rows(natural.data(), g.num_rays(), c.k(), Layout::col_major);
    if (c.world_size > 1) {
        c.scatter(natural, filtered, false);
        rows = filtered.view();
    }
    auto scope = c.times.scope("fbp");
    backproject_direct<V>(rows, g, 0.5 * double(g.num_rho), x.view(), c.o.projector.backend);  // centre-shifted rows
    return x;
}

// Stripes removed from b (a resumed round too: b must be the sinogram it started with) and,
// for --solver fbp and --init fbp, the filtered backprojection: rows filtered on rank 0, then
// core's direct backprojection (--solver fbp) or one SpMM with Aᵀ for all slices. Empty without
// FBP or when `resuming` (the round continues from its checkpoint).
template <typename V>
DenseMatrix<V> beamline_steps(RunContext<V>& c, DenseMatrix<V>& b, bool resuming) {
    const ReconstructOptions& o = c.o;
    const Geometry& g = c.g();
    if (o.remove_stripes)
        c.on_sinograms(b, "stripes", [&](std::vector<V>& s) {
            if (o.stripe_sorting)
                remove_stripes_sorting<V>(s, c.width(), g.num_theta(), g.num_rho, o.stripe_size);
            else
                remove_stripe_offsets<V>(s, c.width(), g.num_theta(), g.num_rho, o.stripe_threshold);
        });
    DenseMatrix<V> x_fbp;
    if ((!o.fbp && !o.init_fbp) || resuming) return x_fbp;
    if (o.fbp) return direct_fbp(c, b);
    DenseMatrix<V> filtered;
    copy_matrix(b, filtered);
    c.on_sinograms(filtered, "fbp", [&](std::vector<V>& s) {
        fbp_filter_rows<V>(s, c.width() * g.num_theta(), g.num_rho, g.theta, o.fbp_options);
    });
    auto scope = c.times.scope("fbp");
    c.op->backward(filtered, x_fbp);
    return x_fbp;
}

// --solver fbp's answer as a finished state: the image, no iterations and no residual (that
// would need A·x, which FBP does not build).
template <typename V>
void fbp_state(const DenseMatrix<V>& b, const DenseMatrix<V>& x_fbp, SolverState<V>& state) {
    const size_type k = b.cols();
    copy_matrix(x_fbp, state.x);
    const auto bb = column_dots(b, b);
    state.iteration = 0;
    state.bnorm.assign(k, 0.0);
    for (size_type j = 0; j < k; ++j) state.bnorm[j] = std::sqrt(bb[j]);
    state.active.assign(k, 0);
    state.history.assign(k, {});
}

// The state: the checkpoint's round (resuming), from the FBP image, or fresh.
template <typename V>
void start_state(RunContext<V>& c, Solver<V>& solver, const DenseMatrix<V>& b, const DenseMatrix<V>& x_fbp,
                 bool resuming, SolverState<V>& state) {
    const SpmmStats before = c.op->stats();
    if (resuming) {
        std::vector<V> none;
        const bool root = c.world_rank == 0;
        c.scatter(root ? c.resumed->x : none, state.x, true);
        c.scatter(root ? c.resumed->r : none, state.r, false);
        if (c.o.solver.algorithm == Algorithm::cgls) c.scatter(root ? c.resumed->p : none, state.p, true);
        broadcast_columns(*c.layout, c.resumed.get(), c.k(), state);
        state.iteration = static_cast<int>(c.resume_header[1]);
        c.resumed.reset();
        solver.resume(b, state);
    } else if (c.o.fbp) {
        fbp_state(b, x_fbp, state);
    } else if (x_fbp.rows() > 0) {
        solver.start_from(b, x_fbp, state);
    } else {
        solver.start(b, state);
    }
    c.add_stats(before, c.op->stats());
}

// One line of progress: the residual of all slices of the round together.
template <typename V>
void print_progress(RunContext<V>& c, const SolverState<V>& state, const SpmmStats& before, double step_seconds,
                    size_type round, size_type count) {
    double sums[2] = {0, 0};
    for (size_type j = 0; j < c.k(); ++j) {
        const double h = state.history[j].back(), bn = state.bnorm[j];
        sums[0] += h * h * bn * bn;
        sums[1] += bn * bn;
    }
    if (c.layout->p_batch() > 1)
        TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, c.layout->batch.get()));
    if (!c.talk) return;
    const SpmmStats& after = c.op->stats();
    const double spmm_s = after.seconds() - before.seconds();
    const double gflops = spmm_s > 0 ? (after.flops - before.flops) / spmm_s / 1e9 : 0.0;
    const double gbs = spmm_s > 0 ? (after.bytes - before.bytes) / spmm_s / 1e9 : 0.0;
    c.log << "iteration " << state.iteration << "/" << c.o.solver.iterations;
    if (c.rounds() > 1) c.log << " (round " << round + 1 << "/" << c.rounds() << ")";
    c.log << "  residual " << sci(sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : 0.0) << "  " << fixed(step_seconds, 3)
          << " s/it  " << fixed(double(count) / step_seconds, 1) << " slices/s  SpMM " << fixed(gflops, 1)
          << " GFLOP/s " << fixed(gbs, 1) << " GB/s (rank 0)\n";
    c.log.flush();
}

// Iterations, all ranks in step (collective checkpoints, one stopping decision). Returns false
// when --stop-after stopped the run.
template <typename V>
bool iterate(RunContext<V>& c, Solver<V>& solver, const DenseMatrix<V>& b, SolverState<V>& state, size_type round,
             size_type count, Timer& iterate_timer, ReconstructResult& result) {
    const ReconstructOptions& o = c.o;
    while (true) {
        int running = solver.running(state) ? 1 : 0;
        TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &running, 1, MPI_INT, MPI_MAX, c.world));
        if (!running) return true;
        Timer step_timer;
        const SpmmStats before = c.op->stats();
        {
            device_traffic::PhaseScope steady(device_traffic::Phase::steady);
            solver.step(b, state);
            device_traffic::count_steady_step();
        }
        c.add_stats(before, c.op->stats());
        ++c.total_iterations;
        ++c.iterations_run;
        c.step_seconds.push_back(step_timer.seconds());
        print_progress(c, state, before, c.step_seconds.back(), round, count);
        if (o.checkpoint_every > 0 && state.iteration % o.checkpoint_every == 0) {
            c.iterate_seconds += iterate_timer.seconds();
            solver.sync(state);
            write_round_checkpoint(c, state, round);
            iterate_timer.restart();
        }
        if (o.stop_after > 0 && c.total_iterations >= o.stop_after) {
            result.stopped = true;
            result.iterations = c.total_iterations;
            if (c.talk) c.log << "stopped after " << c.total_iterations << " iterations (--stop-after)\n";
            return false;
        }
    }
}

// The round's images to rank 0's sink, its histories to rank 0.
template <typename V>
void collect_round(RunContext<V>& c, const SolverState<V>& state, size_type first, size_type count) {
    const size_type k = c.k(), pixels_total = c.g().num_pixels();
    const auto images = c.gather(state.x, true);
    const auto round_histories = gather_histories(*c.layout, state.history);
    std::vector<std::vector<double>> bn_columns(k, std::vector<double>{0.0});
    for (size_type j = 0; j < k; ++j) bn_columns[j][0] = state.bnorm[j];
    const auto round_bnorms = gather_histories(*c.layout, bn_columns);
    if (c.world_rank != 0) return;
    {
        auto scope = c.times.scope("write");
        std::vector<float> round(images.begin(), images.begin() + count * pixels_total);
        c.sink->add(first, count, round.data());
    }
    for (size_type s = 0; s < count; ++s) {
        c.histories.push_back(round_histories[s]);
        c.bnorms.push_back(round_bnorms[s][0]);
    }
}

}  // namespace

// --solver fbp of a file on one rank: the sinograms stay slice after slice, as read, from the
// file to the filter and the backprojection, and the images come out slice after slice, as the
// outputs take them; nothing goes into ray and pixel order and back (the same bits as through
// run_round's matrices: the backprojection sums every pixel's angles in order in either layout).
template <typename V>
void fbp_round_in_place(RunContext<V>& c, size_type first, size_type count) {
    const ReconstructOptions& o = c.o;
    const Geometry& g = c.g();
    const size_type k = c.k(), rays = g.num_rays(), pixels = g.num_pixels();
    std::vector<V> natural = read_natural(c, first, count);
    if (o.remove_stripes) {
        auto scope = c.times.scope("stripes");
        if (o.stripe_sorting)
            remove_stripes_sorting<V>(natural, k, g.num_theta(), g.num_rho, o.stripe_size);
        else
            remove_stripe_offsets<V>(natural, k, g.num_theta(), g.num_rho, o.stripe_threshold);
    }
    std::vector<double> bnorm(static_cast<std::size_t>(k), 0.0);
    std::vector<V> images(static_cast<std::size_t>(pixels * k));
    {
        auto scope = c.times.scope("fbp");
        for (size_type j = 0; j < k; ++j) {
            const V* s = natural.data() + j * rays;
            double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
            for (size_type i = 0; i < rays; ++i) sum += double(s[i]) * double(s[i]);
            bnorm[j] = std::sqrt(sum);
        }
        fbp_filter_rows<V>(natural, k * g.num_theta(), g.num_rho, g.theta, o.fbp_options);
        backproject_direct<V>(DenseView<const V>(natural.data(), rays, k, Layout::col_major), g, 0.5 * double(g.num_rho),
                              DenseView<V>(images.data(), pixels, k, Layout::col_major), o.projector.backend);
    }
    auto scope = c.times.scope("write");
    if constexpr (std::is_same_v<V, float>) {
        c.sink->add(first, count, images.data());
    } else {
        const std::vector<float> round(images.begin(), images.begin() + count * pixels);
        c.sink->add(first, count, round.data());
    }
    for (size_type s = 0; s < count; ++s) {
        c.histories.emplace_back();
        c.bnorms.push_back(bnorm[s]);
    }
}

template <typename V>
bool run_round(RunContext<V>& c, Solver<V>& solver, size_type round, ReconstructResult& result) {
    // Slot s = b·K + j of round r is slice r·width + s (padding beyond the end).
    const size_type first = round * c.width(), count = std::min(c.width(), c.info.slices - first);
    const bool resuming = c.o.resume && round == static_cast<size_type>(c.resume_header[0]);
    if (c.o.fbp && c.world_size == 1 && !c.info.phantom && !resuming) {
        fbp_round_in_place(c, first, count);
        return true;
    }
    DenseMatrix<V> b(c.op->rays(), c.k());
    if (c.info.phantom)
        phantom_sinograms(c, first, count, b);
    else
        file_sinograms(c, first, count, b);
    const DenseMatrix<V> x_fbp = beamline_steps(c, b, resuming);
    {
        auto scope = c.times.scope("build");  // on cuda what is left of Aᵀ's transpose and the uploads
        c.op->finish_build();
    }
    if (c.operator_unlogged) log_operator(c);
    SolverState<V> state;
    Timer iterate_timer;
    start_state(c, solver, b, x_fbp, resuming, state);
    c.start_seconds += iterate_timer.seconds();
    const bool finished = iterate(c, solver, b, state, round, count, iterate_timer, result);
    device_traffic::PhaseScope finish(device_traffic::Phase::finish);
    Timer sync_timer;
    // A finished round needs its image alone; a stopped one is not written (its last checkpoint is).
    solver.sync_image(state);
    c.finish_seconds += sync_timer.seconds();
    c.iterate_seconds += iterate_timer.seconds();
    if (finished) collect_round(c, state, first, count);
    return finished;
}

template bool run_round<float>(RunContext<float>&, Solver<float>&, size_type, ReconstructResult&);
template bool run_round<double>(RunContext<double>&, Solver<double>&, size_type, ReconstructResult&);

}  // namespace tessel::xct
