// The reconstruction driver: inputs, plan (memory, grid, batches), operator, rounds of
// batched solves with checkpoints, outputs.
#include "apps/xct/reconstruct.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "apps/xct/checkpoint.hpp"
#include "apps/xct/exchange_writer.hpp"
#include "apps/xct/output.hpp"
#include "apps/xct/parallel.hpp"
#include "apps/xct/phantom.hpp"
#include "apps/xct/system_matrix.hpp"
#include "apps/xct/transfer.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/metrics.hpp"
#include "core/version.hpp"
#include "io/memxct_raw.hpp"

namespace tessel::xct {

namespace {

std::string fixed(double v, int digits) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", digits, v);
    return text;
}

std::string sci(double v) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.3e", v);
    return text;
}

// The memory one rank may use: the option, or MemAvailable shared by the ranks of the node.
double memory_limit(const ReconstructOptions& o, MPI_Comm world) {
    double limit = o.memory_limit;
    if (!(limit > 0)) {
        MPI_Comm node;
        TESSEL_MPI_CHECK(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
        const int local = comm::size_of(node);
        MPI_Comm_free(&node);
        const double available = available_memory();
        limit = available > 0 ? available / local : std::numeric_limits<double>::infinity();
    }
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &limit, 1, MPI_DOUBLE, MPI_MIN, world));
    return limit;
}

struct RunPlan {
    int p_data = 1, p_batch = 1;
    size_type k = 1;
    MemoryPlan memory;
    MemoryEstimate estimate;
    std::string does_not_fit;  // why the estimate exceeds the limit (dry runs report it)
};

std::string estimate_text(const MemoryEstimate& e, double limit) {
    std::ostringstream out;
    for (const auto& [name, bytes] : e.items) out << "  " << name << ": " << format_bytes(bytes) << "\n";
    out << "  total (busiest rank): " << format_bytes(e.total()) << ", limit "
        << (std::isfinite(limit) ? format_bytes(limit) : std::string("none")) << "\n";
    return out.str();
}

// Picks the data ranks and the slices per batch so that the estimate fits the limit, or throws
// OutOfMemoryBudget saying what would fit.
RunPlan choose_plan(const ReconstructOptions& o, const InputInfo& info, size_type nnz, int ranks, double limit,
                    size_type resume_width) {
    RunPlan plan;
    MemoryPlan& m = plan.memory;
    m.nnz = nnz;
    m.pixels = info.geometry.num_pixels();
    m.rays = info.geometry.num_rays();
    m.value_bytes = o.double_precision ? 8 : 4;
    m.kernel = o.projector.kernel;
    m.slices = info.slices;
    m.input_bytes_per_slice = info.input_bytes_per_slice;
    m.checkpoint = o.checkpoint_every > 0;
    auto fits_with = [&](int p_data, size_type k) {
        MemoryPlan t = m;
        t.p_data = p_data;
        t.k = k;
        t.round_slices = k * (ranks / p_data);
        return estimate_memory(t).total() <= limit;
    };
    if (o.data_ranks > 0) {
        if (ranks % o.data_ranks != 0)
            TESSEL_INVALID_INPUT("data-ranks", 0, std::to_string(o.data_ranks) + " data ranks do not divide " +
                                                      std::to_string(ranks) + " ranks");
        plan.p_data = o.data_ranks;
    } else {
        // MemXCT: data parallelism only until A fits, batch parallelism for the rest.
        plan.p_data = ranks;
        for (int d = 1; d <= ranks; ++d)
            if (ranks % d == 0 && fits_with(d, 1)) {
                plan.p_data = d;
                break;
            }
    }
    plan.p_batch = ranks / plan.p_data;
    const size_type per_group = (info.slices + plan.p_batch - 1) / plan.p_batch;
    m.p_data = plan.p_data;
    size_type fit = 0;
    {
        // Largest k that fits (the round on rank 0 grows with k too).
        size_type lo = 0, hi = std::max<size_type>(1, per_group);
        while (lo < hi) {
            const size_type mid = (lo + hi + 1) / 2;
            if (fits_with(plan.p_data, mid))
                lo = mid;
            else
                hi = mid - 1;
        }
        fit = lo;
    }
    if (resume_width > 0) {
        if (resume_width % plan.p_batch != 0)
            TESSEL_INVALID_INPUT("resume", 0, "the checkpoint has rounds of " + std::to_string(resume_width) +
                                                  " slices, which " + std::to_string(plan.p_batch) +
                                                  " batch groups cannot share; use a rank grid whose batch count "
                                                  "divides " + std::to_string(resume_width));
        plan.k = resume_width / plan.p_batch;
    } else if (o.batch_slices > 0) {
        plan.k = o.batch_slices;
    } else {
        plan.k = std::max<size_type>(1, std::min(per_group, fit));
    }
    m.k = plan.k;
    m.round_slices = plan.k * plan.p_batch;
    plan.estimate = estimate_memory(m);
    if (plan.estimate.total() > limit) {
        std::string fits;
        if (fit > 0) {
            fits = "at most " + std::to_string(fit) + " slices per batch fit (--batch-slices " + std::to_string(fit) +
                   ")";
        } else {
            const int need = min_data_ranks(m, limit);
            fits = "not even one slice per batch fits with " + std::to_string(plan.p_data) + " data rank(s); " +
                   (need > 0 ? "use at least " + std::to_string(need) + " data ranks (mpiexec -n " +
                                   std::to_string(need) + " ... --data-ranks " + std::to_string(need) + ")"
                             : std::string("no number of data ranks fits"));
        }
        plan.does_not_fit =
                     "estimated " + format_bytes(plan.estimate.total()) + " per rank (A and A^T " +
                         format_bytes(plan.estimate.matrices) + ", build peak " + format_bytes(plan.estimate.build_peak) +
                         ", vectors for " + std::to_string(plan.k) + " slices " + format_bytes(plan.estimate.vectors) +
                         ", rank 0 " + format_bytes(plan.estimate.rank0) + ") exceeds the memory limit " +
                         format_bytes(limit) + ": " + fits +
                         "; more data ranks or smaller tiles (--block-rows) also reduce it";
        if (!o.dry_run) TESSEL_THROW(OutOfMemoryBudget, plan.does_not_fit);
    }
    return plan;
}

// Per-slot vectors of rank 0 (slot = batch group·K + column) packed as [gamma, bnorm, active,
// history...] with equal lengths, broadcast, and this rank's columns unpacked.
template <typename V>
void broadcast_columns(const ParallelLayout& layout, const Checkpoint<V>* c, size_type k, SolverState<V>& st) {
    long long header[2] = {0, 0};
    std::vector<double> packed;
    if (layout.rank == 0) {
        const std::size_t slots = c->gamma.size();
        const std::size_t length = c->history.empty() ? 0 : c->history[0].size();
        header[0] = static_cast<long long>(slots);
        header[1] = static_cast<long long>(length + 3);
        for (std::size_t s = 0; s < slots; ++s) {
            packed.push_back(c->gamma[s]);
            packed.push_back(c->bnorm[s]);
            packed.push_back(c->active[s]);
            packed.insert(packed.end(), c->history[s].begin(), c->history[s].end());
            packed.resize((s + 1) * (length + 3), c->history[s].empty() ? 0.0 : c->history[s].back());
        }
    }
    TESSEL_MPI_CHECK(MPI_Bcast(header, 2, MPI_LONG_LONG, 0, layout.world));
    packed.resize(static_cast<std::size_t>(header[0] * header[1]));
    TESSEL_MPI_CHECK(MPI_Bcast(packed.data(), comm::mpi_count(packed.size()), MPI_DOUBLE, 0, layout.world));
    if (header[0] != layout.p_batch() * k)
        TESSEL_INVALID_INPUT("resume", 0, "the checkpoint holds " + std::to_string(header[0]) + " columns, expected " +
                                              std::to_string(layout.p_batch() * k));
    st.gamma.assign(k, 0.0);
    st.bnorm.assign(k, 0.0);
    st.active.assign(k, 0);
    st.history.assign(k, {});
    const long long b = layout.batch_index();
    for (size_type j = 0; j < k; ++j) {
        const double* at = packed.data() + (b * k + j) * header[1];
        st.gamma[j] = at[0];
        st.bnorm[j] = at[1];
        st.active[j] = at[2] != 0.0;
        st.history[j].assign(at + 3, at + header[1]);
    }
}

template <typename V>
ReconstructResult run(const ReconstructOptions& o, MPI_Comm world, std::ostream& log) {
    ReconstructResult result;
    const int world_rank = comm::rank_of(world), world_size = comm::size_of(world);
    const bool talk = world_rank == 0 && !o.quiet;
    PhaseTimes times;
    Timer total_timer;

    // 1. The input, opened on rank 0; everybody gets its description.
    std::unique_ptr<SinogramSource> source;
    std::string info_text;
    on_root(world, [&] {
        auto scope = times.scope("read");
        source = std::make_unique<SinogramSource>(o.input);
        info_text = source->info().json().dump();
    });
    broadcast(world, info_text);
    const InputInfo info = InputInfo::from_json(nlohmann::json::parse(info_text));
    result.info = info;
    const Geometry& g = info.geometry;
    const size_type num_slices = info.slices;

    nlohmann::json fingerprint{{"input", info.description},
                               {"geometry", g.describe()},
                               {"first_slice", info.first_slice},
                               {"slices", num_slices},
                               {"center", info.center},
                               {"solver", std::string(to_string(o.solver.algorithm))},
                               {"iterations", o.solver.iterations},
                               {"nonneg", o.solver.nonneg},
                               {"precision", sizeof(V) == 8 ? "double" : "single"},
                               {"noise", o.input.noise},
                               {"seed", o.input.seed}};
    double theta_sum = 0;
    for (double t : g.theta) theta_sum += t;
    fingerprint["theta_sum"] = fixed(theta_sum, 9);

    // 2. The checkpoint to resume from (rank 0 keeps it), its round width for the plan.
    const std::string checkpoint_path =
        !o.checkpoint_path.empty() ? o.checkpoint_path
                                   : (!o.output.empty() ? o.output + ".ckpt.h5" : std::string("tessel-xct.ckpt.h5"));
    std::unique_ptr<Checkpoint<V>> resumed;
    long long resume_header[4] = {0, 0, 0, 0};  // round, iteration, width, total iterations
    if (o.resume) {
        on_root(world, [&] {
            resumed = std::make_unique<Checkpoint<V>>(read_checkpoint<V>(checkpoint_path));
            check_fingerprint(checkpoint_path, resumed->fingerprint, fingerprint);
            validate_checkpoint(checkpoint_path, *resumed, g.num_pixels(), g.num_rays(), num_slices,
                                o.solver.iterations);
            resume_header[0] = resumed->round;
            resume_header[1] = resumed->iteration;
            resume_header[2] = resumed->round_width;
            resume_header[3] = resumed->total_iterations;
        });
        TESSEL_MPI_CHECK(MPI_Bcast(resume_header, 4, MPI_LONG_LONG, 0, world));
    }

    // 3. The plan: memory estimate, data x batch ranks, slices per batch.
    const size_type nnz_bound = estimate_nnz(g);
    const double limit = memory_limit(o, world);
    const RunPlan plan = choose_plan(o, info, nnz_bound, world_size, limit, static_cast<size_type>(resume_header[2]));
    result.estimate = plan.estimate;
    result.memory_limit = limit;
    result.p_data = plan.p_data;
    result.p_batch = plan.p_batch;
    result.batch_slices = plan.k;
    const size_type k = plan.k, width = plan.k * plan.p_batch;
    const size_type rounds = (num_slices + width - 1) / width;
    if (talk) {
        log << "tessel-xct " << version << ": " << info.description << "\n";
        log << "  " << g.describe() << ", slices " << info.first_slice << ":" << info.first_slice + num_slices
            << ", centre " << info.center << "\n";
        log << "  " << world_size << " rank(s): " << plan.p_data << " data x " << plan.p_batch << " batch, " << k
            << " slice(s) per batch, " << rounds << " round(s); " << to_string(o.solver.algorithm) << ", "
            << o.solver.iterations << " iterations, " << (sizeof(V) == 8 ? "double" : "single") << " precision, "
            << to_string(o.order) << " order\n";
        log << "memory estimate (nnz(A) <= " << nnz_bound << "):\n" << estimate_text(plan.estimate, limit);
        if (!plan.does_not_fit.empty()) log << "does not fit: " << plan.does_not_fit << "\n";
    }
    if (o.dry_run) {
        result.dry_run = true;
        return result;
    }

    // 4. Ranks, orderings, the operator (a missing GPU is found before the build).
    if (o.projector.backend == Backend::cuda && !cuda::device_available())
        TESSEL_THROW(NotCompiled, "--backend cuda: no usable CUDA device (device: " + cuda::device_description() + ")");
    ParallelLayout layout = make_parallel_layout(world, plan.p_data, o.topology);
    Ordering ordering;
    {
        auto scope = times.scope("reorder");
        ordering = make_ordering(g, o.order, o.tile);
    }
    std::unique_ptr<Projector<V>> op;
    std::vector<size_type> pixel_offsets{0, g.num_pixels()}, ray_offsets{0, g.num_rays()};
    if (plan.p_data == 1) {
        op = make_local_projector<V>(g, ordering, o.projector, &times);
    } else {
        DistributedOptions d;
        d.hierarchical = o.hierarchical;
        d.minibatch = o.minibatch;
        d.pipelined = o.pipelined;
        d.method = o.exchange;
        d.backend = o.projector.backend;
        d.cuda_aware = o.cuda_aware_mpi;
        auto dp = std::make_unique<DistributedProjector<V>>(layout.data.get(), layout.data_topology, g, ordering, k, d,
                                                           &times);
        pixel_offsets = dp->pixel_offsets();
        ray_offsets = dp->ray_offsets();
        op = std::move(dp);
    }
    const nlohmann::json operator_info = op->describe();
    if (talk) {
        log << "operator: nnz(A) " << op->nnz() << " (this rank), A and A^T " << format_bytes(op->matrix_bytes());
        if (operator_info.contains("kernel_runs")) log << ", " << operator_info["kernel_runs"].get<std::string>();
        if (operator_info.contains("A"))
            log << ", padding " << fixed(100.0 * operator_info["A"]["padding"].get<double>(), 1)
                << "%, reuse A " << fixed(operator_info["A"]["average_reuse"].get<double>(), 2) << " A^T "
                << fixed(operator_info["At"]["average_reuse"].get<double>(), 2);
        log << ", built in " << fixed(times.get("build"), 2) << " s\n";
        if (o.verbose) log << "  " << operator_info.dump() << "\n";
    }
    const double communicate_scale = world_size > 1 ? 1.0 : 0.0;
    auto transfer_scope = [&]() { return times.scope(communicate_scale > 0 ? "communicate" : "reorder"); };

    Solver<V> solver(*op, o.solver, layout.data_sum());
    auto scatter = [&](const std::vector<V>& natural, DenseMatrix<V>& local, bool pixels) {
        auto scope = transfer_scope();
        scatter_domain(layout, natural, local, pixels ? pixel_offsets : ray_offsets,
                       pixels ? ordering.pixels : ordering.rays, k);
    };
    auto gather = [&](const DenseMatrix<V>& local, bool pixels) {
        auto scope = transfer_scope();
        return gather_domain(layout, local, pixels ? pixel_offsets : ray_offsets, pixels ? ordering.pixels : ordering.rays);
    };

    // 5. Rounds: slot s = b·K + j of round r is slice r·width + s (padding beyond the end).
    std::vector<float> volume;  // rank 0
    std::vector<std::vector<double>> histories;
    std::vector<double> bnorms;
    std::vector<float> saved_sinogram;  // rank 0, for --save-sinogram and --save-exchange
    const bool save = !o.save_sinogram.empty() || !o.save_exchange.empty();
    size_type first_round = 0;
    int total_iterations = 0;
    if (o.resume) {
        first_round = static_cast<size_type>(resume_header[0]);
        total_iterations = static_cast<int>(resume_header[3]);
        if (world_rank == 0) {
            volume = std::move(resumed->volume);
            histories = std::move(resumed->done_histories);
            bnorms = std::move(resumed->done_bnorms);
        }
    }
    SpmmStats stats;  // the SpMMs of the solver (not those that made phantom sinograms)
    auto add_stats = [&](const SpmmStats& before, const SpmmStats& after) {
        stats.forward_calls += after.forward_calls - before.forward_calls;
        stats.backward_calls += after.backward_calls - before.backward_calls;
        stats.forward_seconds += after.forward_seconds - before.forward_seconds;
        stats.backward_seconds += after.backward_seconds - before.backward_seconds;
        stats.flops += after.flops - before.flops;
        stats.bytes += after.bytes - before.bytes;
        stats.communicate_seconds += after.communicate_seconds - before.communicate_seconds;
    };
    const size_type pixels_total = g.num_pixels(), rays_total = g.num_rays();
    Timer iterate_timer;
    double iterate_seconds = 0;
    size_type iterations_run = 0;
    for (size_type round = first_round; round < rounds; ++round) {
        const size_type first = round * width, count = std::min(width, num_slices - first);
        // The sinograms b of this round, distributed.
        DenseMatrix<V> b(op->rays(), k);
        if (info.phantom) {
            std::vector<V> images;
            if (world_rank == 0) {
                auto scope = times.scope("preprocess");
                const auto truth = phantom_images(info, first, count);
                images.assign(static_cast<std::size_t>(width * pixels_total), V{0});
                std::copy(truth.begin(), truth.end(), images.begin());
            }
            DenseMatrix<V> x_true;
            scatter(images, x_true, true);
            {
                auto scope = times.scope("preprocess");
                op->forward(x_true, b);
                if (o.input.noise > 0) {
                    // Noise keyed by (slice, natural ray), scaled by each slice's largest line
                    // integral: the same whatever the ranks.
                    std::vector<double> peak(k, 0.0);
                    for (size_type i = 0; i < b.rows(); ++i)
                        for (size_type j = 0; j < k; ++j) peak[j] = std::max(peak[j], double(b(i, j)));
                    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, peak.data(), comm::mpi_count(k), MPI_DOUBLE, MPI_MAX,
                                                   layout.data.get()));
                    const size_type slot0 = layout.batch_index() * k;
#pragma omp parallel for schedule(static)
                    for (size_type i = 0; i < b.rows(); ++i) {
                        const size_type ray = ordering.rays[op->first_ray() + i];
                        for (size_type j = 0; j < k; ++j) {
                            const size_type slice = info.first_slice + first + slot0 + j;
                            b(i, j) = static_cast<V>(noisy_line_integral(
                                double(b(i, j)), o.input.noise, peak[j], o.input.seed,
                                std::uint64_t(slice) * std::uint64_t(rays_total) + std::uint64_t(ray)));
                        }
                    }
                }
            }
            if (save) {
                const auto natural = gather(b, false);
                if (world_rank == 0)
                    saved_sinogram.insert(saved_sinogram.end(), natural.begin(), natural.begin() + count * rays_total);
            }
        } else {
            std::vector<V> natural;
            on_root(world, [&] {
                size_type clamped = 0;
                const auto sino = source->read(first, count, times, clamped);
                if (clamped > 0)
                    std::fprintf(stderr,
                                 "tessel-xct: warning: %lld values of slices %lld:%lld were not positive after "
                                 "flat/dark normalisation and were clamped to 1e-6 before -log\n",
                                 static_cast<long long>(clamped), static_cast<long long>(info.first_slice + first),
                                 static_cast<long long>(info.first_slice + first + count));
                natural.assign(static_cast<std::size_t>(width * rays_total), V{0});
                std::copy(sino.begin(), sino.end(), natural.begin());
                if (save) saved_sinogram.insert(saved_sinogram.end(), sino.begin(), sino.end());
            });
            scatter(natural, b, false);
        }

        // The state: fresh, or the checkpoint's round.
        SolverState<V> state;
        iterate_timer.restart();
        const SpmmStats before_start = op->stats();
        if (o.resume && round == first_round) {
            std::vector<V> none;
            scatter(world_rank == 0 ? resumed->x : none, state.x, true);
            scatter(world_rank == 0 ? resumed->r : none, state.r, false);
            if (o.solver.algorithm == Algorithm::cgls) scatter(world_rank == 0 ? resumed->p : none, state.p, true);
            broadcast_columns(layout, resumed.get(), k, state);
            state.iteration = static_cast<int>(resume_header[1]);
            resumed.reset();
        } else {
            solver.start(b, state);
        }
        add_stats(before_start, op->stats());

        // Iterations, all ranks in step (collective checkpoints, one stopping decision).
        while (true) {
            int running = solver.running(state) ? 1 : 0;
            TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &running, 1, MPI_INT, MPI_MAX, world));
            if (!running) break;
            Timer step_timer;
            const SpmmStats before = op->stats();
            solver.step(b, state);
            add_stats(before, op->stats());
            ++total_iterations;
            ++iterations_run;
            const double step_seconds = step_timer.seconds();
            // Progress: the residual of all slices of the round together.
            double sums[2] = {0, 0};
            for (size_type j = 0; j < k; ++j) {
                const double h = state.history[j].back(), bn = state.bnorm[j];
                sums[0] += h * h * bn * bn;
                sums[1] += bn * bn;
            }
            if (layout.p_batch() > 1)
                TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, layout.batch.get()));
            if (talk) {
                const SpmmStats& after = op->stats();
                const double spmm_s = after.seconds() - before.seconds();
                const double gflops = spmm_s > 0 ? (after.flops - before.flops) / spmm_s / 1e9 : 0.0;
                const double gbs = spmm_s > 0 ? (after.bytes - before.bytes) / spmm_s / 1e9 : 0.0;
                log << "iteration " << state.iteration << "/" << o.solver.iterations;
                if (rounds > 1) log << " (round " << round + 1 << "/" << rounds << ")";
                log << "  residual " << sci(sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : 0.0) << "  "
                    << fixed(step_seconds, 3) << " s/it  " << fixed(double(count) / step_seconds, 1)
                    << " slices/s  SpMM " << fixed(gflops, 1) << " GFLOP/s " << fixed(gbs, 1) << " GB/s (rank 0)\n";
                log.flush();
            }
            const bool checkpoint_now = o.checkpoint_every > 0 && state.iteration % o.checkpoint_every == 0;
            const bool stop_now = o.stop_after > 0 && total_iterations >= o.stop_after;
            if (checkpoint_now) {
                iterate_seconds += iterate_timer.seconds();
                auto scope = times.scope("checkpoint");
                Checkpoint<V> c;
                c.x = gather(state.x, true);
                c.r = gather(state.r, false);
                if (o.solver.algorithm == Algorithm::cgls) c.p = gather(state.p, true);
                std::vector<std::vector<double>> packed(k);
                for (size_type j = 0; j < k; ++j) {
                    packed[j] = {state.gamma[j], state.bnorm[j], double(state.active[j])};
                    packed[j].insert(packed[j].end(), state.history[j].begin(), state.history[j].end());
                }
                const auto all = gather_histories(layout, packed);
                on_root(world, [&] {
                    c.fingerprint = fingerprint;
                    c.round = round;
                    c.iteration = state.iteration;
                    c.round_width = width;
                    c.total_iterations = total_iterations;
                    c.volume = volume;
                    c.done_histories = histories;
                    c.done_bnorms = bnorms;
                    for (const auto& column : all) {
                        c.gamma.push_back(column[0]);
                        c.bnorm.push_back(column[1]);
                        c.active.push_back(column[2] != 0.0);
                        c.history.emplace_back(column.begin() + 3, column.end());
                    }
                    write_checkpoint(checkpoint_path, c, pixels_total, rays_total);
                });
                iterate_timer.restart();
            }
            if (stop_now) {
                result.stopped = true;
                result.iterations = total_iterations;
                if (talk) log << "stopped after " << total_iterations << " iterations (--stop-after)\n";
                return result;
            }
        }
        iterate_seconds += iterate_timer.seconds();

        // The round's images and histories to rank 0.
        const auto images = gather(state.x, true);
        const auto round_histories = gather_histories(layout, state.history);
        std::vector<std::vector<double>> bn_columns(k, std::vector<double>{0.0});
        for (size_type j = 0; j < k; ++j) bn_columns[j][0] = state.bnorm[j];
        const auto round_bnorms = gather_histories(layout, bn_columns);
        if (world_rank == 0) {
            volume.reserve(static_cast<std::size_t>(num_slices * pixels_total));
            for (size_type i = 0; i < count * pixels_total; ++i) volume.push_back(static_cast<float>(images[i]));
            for (size_type s = 0; s < count; ++s) {
                histories.push_back(round_histories[s]);
                bnorms.push_back(round_bnorms[s][0]);
            }
        }
    }
    times.add("iterate", iterate_seconds);

    // 6. Outputs on rank 0.
    double totals[3] = {stats.flops, stats.bytes, 0.0}, slowest[2] = {stats.seconds(), stats.communicate_seconds};
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, totals, 3, MPI_DOUBLE, MPI_SUM, world));
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, slowest, 2, MPI_DOUBLE, MPI_MAX, world));
    times.add("communicate", slowest[1]);
    double matrix_bytes = op->matrix_bytes();
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &matrix_bytes, 1, MPI_DOUBLE, MPI_MAX, world));
    on_root(world, [&] {
        result.histories = histories;
        result.residuals = combined_residuals(histories, bnorms);
        result.iterations = result.residuals.empty() ? 0 : static_cast<int>(result.residuals.size()) - 1;
        if (info.phantom) {
            for (size_type s = 0; s < num_slices; ++s) {
                const auto truth = phantom_images(info, s, 1);
                result.psnr.push_back(psnr(std::span<const float>(volume.data() + s * pixels_total, pixels_total), truth));
            }
        }
        bool saved = false;  // the sinograms were written
        double saved_scale = 1.0;
        if (save) {
            auto scope = times.scope("write");
            if (saved_sinogram.size() != static_cast<std::size_t>(num_slices * rays_total)) {
                if (talk) log << "tessel-xct: --save-sinogram / --save-exchange skipped: the run was resumed\n";
            } else {
                saved = true;
                if (!o.save_sinogram.empty()) {
                    io::write_sinogram(o.save_sinogram + ".sino", saved_sinogram, num_slices, g.num_theta(), g.num_rho);
                    std::vector<float> theta(g.theta.begin(), g.theta.end());
                    io::write_theta(o.save_sinogram + ".theta", theta);
                }
                if (!o.save_exchange.empty()) {
                    // The phantom has no physical unit: its line integrals are scaled so that the
                    // counts stay well inside uint16; measured ones are kept.
                    const double scale = info.phantom ? phantom_line_integral_scale(saved_sinogram) : 1.0;
                    ExchangeProvenance provenance{info.description, info.first_slice, o.command_line, version};
                    const size_type clamped =
                        save_exchange(o.save_exchange, std::move(saved_sinogram), num_slices, g, scale, provenance);
                    if (clamped > 0)
                        std::fprintf(stderr,
                                     "tessel-xct: warning: %lld counts of %s were outside uint16 and were clamped "
                                     "to [0, 65535]\n",
                                     static_cast<long long>(clamped), o.save_exchange.c_str());
                    saved_scale = scale;
                }
            }
        }
        VolumeAttributes attributes;
        attributes.algorithm = std::string(to_string(o.solver.algorithm));
        attributes.iterations = result.iterations;
        attributes.residuals = result.residuals;
        attributes.center = info.center;
        attributes.command_line = o.command_line;
        attributes.version = version;
        attributes.first_slice = info.first_slice;
        attributes.extra = {{"input", info.description},
                            {"geometry", g.describe()},
                            {"precision", sizeof(V) == 8 ? "double" : "single"},
                            {"order", std::string(to_string(o.order))},
                            {"tol", o.solver.tol},
                            {"nonneg", o.solver.nonneg},
                            {"ranks", world_size},
                            {"data_ranks", plan.p_data},
                            {"batch_ranks", plan.p_batch}};
        {
            auto scope = times.scope("write");
            if (!o.output.empty()) write_volume(o.output, volume, num_slices, g.n, attributes, histories);
            if (!o.png_dir.empty()) {
                std::vector<size_type> chosen;
                for (size_type s : o.png_slices) chosen.push_back(s - info.first_slice);
                if (chosen.empty()) chosen.push_back(num_slices / 2);
                write_previews(o.png_dir, volume, g.n, chosen, info.first_slice, o.colormap);
            }
        }
        const double spmm_seconds = slowest[0];
        const double per_iteration = iterations_run > 0 ? iterate_seconds / double(iterations_run) : 0.0;
        nlohmann::json& m = result.metrics;
        m["input"] = info.description;
        m["geometry"] = {{"n", g.n}, {"num_theta", g.num_theta()}, {"num_rho", g.num_rho}};
        m["slices"] = num_slices;
        m["first_slice"] = info.first_slice;
        m["solver"] = {{"algorithm", std::string(to_string(o.solver.algorithm))},
                       {"iterations", result.iterations},
                       {"tol", o.solver.tol},
                       {"nonneg", o.solver.nonneg},
                       {"precision", sizeof(V) == 8 ? "double" : "single"}};
        m["residuals"] = result.residuals;
        m["ranks"] = {{"total", world_size}, {"data", plan.p_data}, {"batch", plan.p_batch}, {"topology", o.topology}};
        m["batch_slices"] = k;
        m["rounds"] = rounds;
        m["order"] = {{"kind", std::string(to_string(o.order))}, {"tile", o.tile}};
        m["operator"] = operator_info;
        m["memory"] = {{"estimate_total", plan.estimate.total()},
                       {"estimate_matrices", plan.estimate.matrices},
                       {"estimate_build_peak", plan.estimate.build_peak},
                       {"limit", std::isfinite(limit) ? limit : -1.0},
                       {"matrix_bytes", matrix_bytes}};
        m["spmm"] = {{"calls", stats.forward_calls + stats.backward_calls},
                     {"seconds", spmm_seconds},
                     {"flops", totals[0]},
                     {"bytes", totals[1]},
                     {"gflops", spmm_seconds > 0 ? totals[0] / spmm_seconds / 1e9 : 0.0},
                     {"gbytes_per_s", spmm_seconds > 0 ? totals[1] / spmm_seconds / 1e9 : 0.0}};
        m["iteration_seconds"] = per_iteration;
        m["iterations_run"] = iterations_run;
        m["seconds_per_slice_iteration"] = per_iteration > 0 ? per_iteration / double(std::min(num_slices, width)) : 0.0;
        if (!result.psnr.empty()) m["psnr_db"] = result.psnr;
        m["threads"] = omp_get_max_threads();
        m["command_line"] = o.command_line;
        times.add("total", total_timer.seconds());
        m["phases"] = nlohmann::json::object();
        for (const auto& [phase, seconds] : times.all()) m["phases"][phase] = seconds;
        if (!o.metrics_path.empty()) {
            Metrics doc("tessel-xct");
            doc.json().update(m);
            doc.set_phases(times);
            doc.write(o.metrics_path);
        }
        if (talk) {
            log << "done: " << num_slices << " slice(s), " << result.iterations << " iterations, residual "
                << (result.residuals.empty() ? std::string("-") : sci(result.residuals.back())) << ", "
                << fixed(per_iteration, 3) << " s/iteration";
            if (!result.psnr.empty()) {
                double worst = result.psnr[0];
                for (double p : result.psnr) worst = std::min(worst, p);
                log << ", PSNR vs phantom " << fixed(worst, 2) << " dB" << (result.psnr.size() > 1 ? " (worst slice)" : "");
            }
            log << "\n";
            log << "phases (s):";
            for (const auto& [phase, seconds] : times.all()) log << " " << phase << " " << fixed(seconds, 3);
            log << "\n";
            if (!o.output.empty()) log << "volume: " << o.output << "\n";
            if (!o.png_dir.empty()) log << "previews: " << o.png_dir << "\n";
            if (!o.metrics_path.empty()) log << "metrics: " << o.metrics_path << "\n";
            if (saved && !o.save_sinogram.empty())
                log << "sinograms: " << o.save_sinogram << ".sino, " << o.save_sinogram << ".theta\n";
            if (saved && !o.save_exchange.empty())
                log << "sinograms: " << o.save_exchange << " (Data Exchange, line integrals x " << saved_scale << ")\n";
        }
        result.volume = std::move(volume);
    });
    return result;
}

}  // namespace

ReconstructResult reconstruct(const ReconstructOptions& options, MPI_Comm world, std::ostream& log) {
    if (options.double_precision) return run<double>(options, world, log);
    return run<float>(options, world, log);
}

}  // namespace tessel::xct
