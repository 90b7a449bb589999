// tessel-abcd: the CCSD ABCD term R(ij,ab) = Σ_cd T(ij,cd)·V(cd,ab) as the distributed
// block-sparse GEMM C = A·B with irregular tiles (inspector, then executor), from a generator
// or a problem file.
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <thread>

#include "apps/ccsd_abcd/dense_verification.hpp"
#include "apps/ccsd_abcd/dgemm_rate.hpp"
#include "apps/ccsd_abcd/executor.hpp"
#include "apps/ccsd_abcd/inspector.hpp"
#include "apps/ccsd_abcd/molecule_generator.hpp"
#include "apps/ccsd_abcd/problem_file.hpp"
#include "apps/ccsd_abcd/result_file.hpp"
#include "apps/ccsd_abcd/result_gather.hpp"
#include "apps/ccsd_abcd/synthetic_generator.hpp"
#include "apps/ccsd_abcd/tile_memory.hpp"
#include "apps/ccsd_abcd/tiling_advice.hpp"
#include "apps/ccsd_abcd/tiling_candidates.hpp"
#include "core/app/machine.hpp"
#include "core/app/run_mpi_app.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"
#include "io/atomic_output.hpp"

namespace {

using namespace tessel;
using namespace tessel::abcd;

using app::QuietExit;

struct Args {
    std::string generator, problem_file, grid, device_memory, output, metrics, backend = "auto", precision = "double",
        save_problem, column_assignment = "refined";
    SyntheticOptions synthetic;
    MoleculeOptions molecule;
    std::uint64_t seed = 1;
    int threads = 0;
    size_type dgemm_size = 2048;
    bool verify = false, output_tiles = false, save_tiles = false, plan_only = false, verbose = false, quiet = false;
    // Tile-size advice (issue 17).
    std::string tiling = "given", rate_table;
    bool advise_tiles = false, measure_candidates = false, calibrate = false;
};

int rank_of(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

int size_of(MPI_Comm comm) {
    int s = 1;
    MPI_Comm_size(comm, &s);
    return s;
}

// Runs `f` on every rank; if it throws anywhere, the lowest failing rank rethrows (main prints
// its line) and the others leave quietly.
template <typename F>
auto collective(MPI_Comm comm, F&& f) -> decltype(f()) {
    return app::all_ranks(comm, std::forward<F>(f));
}

size_type physical_memory() {
    const double bytes = physical_memory_bytes();
    return bytes > 0 ? static_cast<size_type>(bytes) : size_type(8) << 30;
}

// Ranks sharing this node (for the default thread count and memory budget).
int local_ranks(MPI_Comm comm, int* local_rank = nullptr) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    const int n = size_of(node);
    if (local_rank) *local_rank = rank_of(node);
    MPI_Comm_free(&node);
    return n;
}

Problem build_problem(const Args& a, MoleculeSummary* molecule) {
    const int sources = int(!a.generator.empty()) + int(!a.problem_file.empty());
    if (sources != 1)
        TESSEL_INVALID_INPUT("command line", 0, "give exactly one of --generator synthetic|molecule and --problem FILE.h5");
    if (!a.problem_file.empty()) return load_problem(a.problem_file);
    if (a.generator == "synthetic") {
        SyntheticOptions o = a.synthetic;
        o.seed = a.seed;
        return synthetic_problem(o);
    }
    if (a.generator == "molecule") {
        MoleculeOptions o = a.molecule;
        o.seed = a.seed;
        return molecule_problem(o, molecule);
    }
    TESSEL_INVALID_INPUT("--generator", 0, "'" + a.generator + "' is not synthetic or molecule");
}

// The executor's wall time on `p` over every rank (max), as run_typed times it; an executor
// error aborts the job as there.
template <typename T>
double measure_executor(const Problem& p, const InspectorOptions& io, Backend backend, MPI_Comm comm) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    Plan plan = collective(comm, [&] { return inspect(p, io); });
    TileStore<T> a_tiles = collective(comm, [&] { return make_local_a<T>(p, plan.grid, rank); });
    ExecutorOptions eo;
    eo.backend = backend;
    eo.comm = ranks > 1 ? comm : MPI_COMM_NULL;
    eo.rank = rank;
    TileStore<T> c;
    MPI_Barrier(comm);
    Timer t;
    try {
        execute(p, plan, a_tiles, c, eo);
    } catch (const Error& e) {
        std::fprintf(stderr, "tessel-abcd: rank %d: %s\n", rank, e.message().c_str());
        if (ranks > 1) MPI_Abort(comm, 1);
        throw QuietExit{1};
    }
    MPI_Barrier(comm);
    double seconds = t.seconds();
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    tile_memory::trim();
    return seconds;
}

// --advise-tiles / --tiling auto: the candidates of the problem predicted (rank 0 holds the
// rate table), measured with --measure-candidates, the table printed; returns the index of
// the recommended candidate (the same on every rank).
template <typename T>
std::size_t advise_tiling(const Args& a, std::vector<TilingCandidate>& candidates, const InspectorOptions& io,
                          Backend backend, MPI_Comm comm, bool say) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    const int workers = ranks * std::max(1, std::min(omp_get_max_threads(), cores_allowed()));
    std::vector<TilingPrediction> predictions;
    std::string note;
    int recommended = collective(comm, [&] {
        if (rank != 0) return 0;
        GemmRateTable table;
        if (a.rate_table.empty()) {
            table = machine_rate_table(std::is_same_v<T, double>, a.calibrate, &note);
        } else {
            table = read_rate_table(a.rate_table);
            note = "from " + a.rate_table;
        }
        for (const auto& c : candidates) predictions.push_back(predict_tiling(c.problem, table, workers, c.label, c.parameter));
        return static_cast<int>(recommend_tiling(predictions));
    });
    MPI_Bcast(&recommended, 1, MPI_INT, 0, comm);
    // Best of two runs each: on a shared machine one run can be disturbed by other processes.
    if (a.measure_candidates)
        for (std::size_t x = 0; x < candidates.size(); ++x) {
            const double s = std::min(measure_executor<T>(candidates[x].problem, io, backend, comm),
                                      measure_executor<T>(candidates[x].problem, io, backend, comm));
            if (rank == 0) predictions[x].measured_seconds = s;
        }
    if (say) {
        std::printf("tiling advice: GEMM rates per tile shape %s; %d worker(s) (ranks x threads)\n", note.c_str(), workers);
        std::fputs(advice_table(predictions, static_cast<std::size_t>(recommended)).c_str(), stdout);
        std::fflush(stdout);
    }
    return static_cast<std::size_t>(recommended);
}

template <typename T>
int run_typed(const Args& a, MPI_Comm comm) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    const bool say = rank == 0 && !a.quiet;
    PhaseTimes phases;
    Timer t;

    // Problem: every rank builds the same one (generators are seeded; files are read by all).
    MoleculeSummary mol;
    Problem problem = collective(comm, [&] {
        Problem p = build_problem(a, &mol);
        p.precision = std::is_same_v<T, double> ? Precision::float64 : Precision::float32;
        return p;
    });
    phases.add("problem", t.seconds());
    if (say) {
        std::printf("tessel-abcd: %s\n", problem.description.c_str());
        if (a.generator == "molecule")
            std::printf("molecule: C%dH%d, O = %lld occupied (%lld clusters), U = %lld basis functions (%lld clusters), "
                        "%lld of %lld ij pairs kept, chain %.1f A\n",
                        mol.carbons, mol.hydrogens, (long long)mol.occupied, (long long)mol.occupied_clusters,
                        (long long)mol.unoccupied, (long long)mol.ao_clusters, (long long)mol.pairs_kept,
                        (long long)mol.pairs, mol.chain_length);
        std::printf("A (T): %lld x %lld, rows %s, cols %s, %lld tiles, density %.4f\n", (long long)problem.m(),
                    (long long)problem.k(), problem.m_tiling.describe().c_str(), problem.k_tiling.describe().c_str(),
                    (long long)problem.a_shape.nnz(), problem.density_a());
        std::printf("B (V): %lld x %lld, cols %s, %lld tiles, density %.4f (%s if stored whole)\n", (long long)problem.k(),
                    (long long)problem.n(), problem.n_tiling.describe().c_str(), (long long)problem.b_shape.nnz(),
                    problem.density_b(),
                    format_bytes(problem.b_shape.area(problem.k_tiling, problem.n_tiling) * double(sizeof(T))).c_str());
        std::printf("values: %s, %s precision; %d rank(s) x %d thread(s)\n", problem.values->describe().c_str(),
                    std::is_same_v<T, double> ? "double" : "float", ranks, omp_get_max_threads());
    }
    if (!a.save_problem.empty())
        collective(comm, [&] {
            if (rank == 0) save_problem(problem, a.save_problem, a.save_tiles);
        });
    if (say && !a.save_problem.empty())
        std::printf("problem saved to %s%s\n", a.save_problem.c_str(), a.save_tiles ? " (with tiles)" : "");

    // Backend and memory budget.
    std::string why;
    const Backend backend = collective(comm, [&] {
        const Backend b = choose_backend(parse_backend(a.backend), &why);
        if (b == Backend::cuda) require_cuda_backend();
        return b;
    });
    InspectorOptions io;
    io.grid = collective(comm, [&] { return ProcessGrid::parse(a.grid, ranks); });
    io.precision = problem.precision;
    io.refine_columns = a.column_assignment == "refined";
    std::string budget_note;
    // cuda: the node's GPUs shared out among its ranks (the paper runs several per process).
    int local_rank = 0;
    const int on_node = local_ranks(comm, &local_rank);
    io.devices = 1;
    int first_device = 0;
    if (backend == Backend::cuda) {
        int per_rank = std::max(1, cuda_device_count() / on_node);
        MPI_Allreduce(MPI_IN_PLACE, &per_rank, 1, MPI_INT, MPI_MIN, comm);
        io.devices = per_rank;
        first_device = local_rank * per_rank;
    }
    if (!a.device_memory.empty()) {
        io.device_memory = collective(comm, [&] { return parse_bytes(a.device_memory, "--device-memory"); });
        budget_note = "given";
    } else if (backend == Backend::cuda) {
        // 90% of the free memory leaves room for cuBLAS's workspace.
        size_type free_bytes = cuda_device_memory(first_device);
        for (int d = 1; d < io.devices; ++d) free_bytes = std::min(free_bytes, cuda_device_memory(first_device + d));
        MPI_Allreduce(MPI_IN_PLACE, &free_bytes, 1, MPI_INT64_T, MPI_MIN, comm);
        io.device_memory = free_bytes / 10 * 9;
        budget_note = "90% of the GPU's free memory";
    } else {
        io.device_memory = physical_memory() / 4 / on_node;
        budget_note = "cpu default: a quarter of host memory per rank on the node";
    }

    // Tile-size advice: print it (and stop), or run with the recommended tiling.
    if (a.advise_tiles || a.tiling == "auto") {
        MoleculeOptions molecule = a.molecule;
        molecule.seed = a.seed;
        auto candidates = collective(comm, [&] {
            return tiling_candidates(problem, a.generator == "molecule" ? &molecule : nullptr);
        });
        const std::size_t pick = advise_tiling<T>(a, candidates, io, backend, comm, say);
        if (a.tiling != "auto") return 0;
        problem = std::move(candidates[pick].problem);
        if (say) std::printf("tiling auto: running %s: %s\n", candidates[pick].label.c_str(), problem.description.c_str());
    } else if (a.calibrate) {
        std::string note;
        collective(comm, [&] {
            if (rank == 0) machine_rate_table(std::is_same_v<T, double>, true, &note);
        });
        if (say) std::printf("GEMM rate table %s\n", note.c_str());
        return 0;
    }

    // Inspector.
    t.restart();
    Plan plan = collective(comm, [&] { return inspect(problem, io); });
    double inspector_seconds = t.seconds();
    MPI_Allreduce(MPI_IN_PLACE, &inspector_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    phases.add("inspector", inspector_seconds);
    const double c_density = plan.product.c_shape.density(problem.m_tiling, problem.n_tiling);
    if (say) {
        std::printf("R (C): %lld tiles, density %.4f; densities T %.4f, V %.4f, R %.4f; %.6g GFLOP in %lld tile GEMMs\n",
                    (long long)plan.product.c_shape.nnz(), c_density, problem.density_a(), problem.density_b(),
                    c_density, plan.product.flops * 1e-9, (long long)plan.product.gemms);
        std::printf("budget: %s per device (%s); backend %s\n", format_bytes(double(io.device_memory)).c_str(),
                    budget_note.c_str(), why.c_str());
        if (plan.grid.size() < ranks)
            std::printf("note: grid %s uses %d of %d ranks; the others stay idle\n", plan.grid.describe().c_str(),
                        plan.grid.size(), ranks);
        std::fputs(plan.describe(a.verbose || ranks <= 4).c_str(), stdout);
        if (a.verbose) std::printf("symbolic product: %s\n", plan.product.kernel.c_str());
        std::fflush(stdout);
    }

    Metrics metrics("tessel-abcd");
    auto& doc = metrics.json();
    doc["problem"] = {{"description", problem.description},
                      {"m", problem.m()},
                      {"n", problem.n()},
                      {"k", problem.k()},
                      {"tiles", {{"m", problem.m_tiling.count()}, {"k", problem.k_tiling.count()}, {"n", problem.n_tiling.count()}}},
                      {"density_a", problem.density_a()},
                      {"density_b", problem.density_b()},
                      {"density_c", c_density},
                      {"precision", std::is_same_v<T, double> ? "double" : "float"}};
    doc["ranks"] = ranks;
    doc["threads_per_rank"] = omp_get_max_threads();
    doc["plan"] = plan.to_json();
    doc["inspector_seconds"] = inspector_seconds;
    if (a.plan_only) {
        metrics.set_phases(phases);
        if (rank == 0 && !a.metrics.empty()) metrics.write(a.metrics);
        return 0;
    }

    // The machine's DGEMM rate in this run: every rank at once, its own threads, rates summed.
    double dgemm_rate = 0, dgemm_rates[2] = {0, 0};
    if (a.dgemm_size > 0) {
        MPI_Barrier(comm);
        const DgemmRate d = measure_dgemm_rate(a.dgemm_size, omp_get_max_threads());
        dgemm_rates[0] = d.one_call;
        dgemm_rates[1] = d.concurrent;
        MPI_Allreduce(MPI_IN_PLACE, dgemm_rates, 2, MPI_DOUBLE, MPI_SUM, comm);
        dgemm_rate = std::max(dgemm_rates[0], dgemm_rates[1]);
        if (say)
            std::printf("DGEMM reference: %.1f GFLOP/s (n = %lld, all ranks at once; threaded calls %.1f, one "
                        "single-threaded call per core %.1f)\n",
                        dgemm_rate * 1e-9, (long long)a.dgemm_size, dgemm_rates[0] * 1e-9, dgemm_rates[1] * 1e-9);
    }

    // A: this rank's own tiles (2D-cyclic), made before the timed executor.
    t.restart();
    TileStore<T> a_tiles = collective(comm, [&] { return make_local_a<T>(problem, plan.grid, rank); });
    phases.add("generate_a", t.seconds());

    // Executor: an error here may leave other ranks waiting on messages, so it aborts the job.
    ExecutorOptions eo;
    eo.backend = parse_backend(a.backend);
    eo.comm = ranks > 1 ? comm : MPI_COMM_NULL;
    eo.rank = rank;
    eo.first_device = first_device;
    eo.verbose = a.verbose;
    TileStore<T> c_owned;
    MPI_Barrier(comm);
    t.restart();
    ExecutionResult er;
    try {
        er = execute(problem, plan, a_tiles, c_owned, eo);
    } catch (const Error& e) {
        // Other ranks may wait for this one's messages: run_mpi_app ends the job.
        throw std::runtime_error("rank " + std::to_string(rank) + ": " + e.message());
    }
    MPI_Barrier(comm);
    double exec_seconds = t.seconds();
    tile_memory::trim();  // one run per process: give the kept B and C buffers back
    MPI_Allreduce(MPI_IN_PLACE, &exec_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    phases.add("executor", exec_seconds);
    a_tiles.clear();

    double flops = er.flops, bgen = er.b_generation_seconds, wait = er.a_wait_seconds;
    long long gemms = er.gemms;
    long long bytes[6] = {er.a_sent_bytes, er.a_received_bytes, er.c_sent_bytes, er.c_received_bytes, er.h2d_bytes,
                          er.d2h_bytes};
    MPI_Allreduce(MPI_IN_PLACE, &flops, 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &bgen, 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &wait, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &gemms, 1, MPI_LONG_LONG, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, bytes, 6, MPI_LONG_LONG, MPI_SUM, comm);
    const double rate = exec_seconds > 0 ? flops / exec_seconds : 0;
    const bool flops_agree = std::abs(flops - plan.product.flops) <= 1e-9 * std::max(1.0, plan.product.flops) &&
                             gemms == plan.product.gemms;
    if (a.verbose)
        std::printf("rank %d: %s; %.3f s, %.3f GFLOP, %lld blocks, %lld chunks\n", rank, er.backend.c_str(), er.seconds,
                    er.flops * 1e-9, (long long)er.blocks, (long long)er.chunks);
    if (say) {
        std::printf("executor: %s\n", er.backend.c_str());
        std::printf("executor: %.3f s, %.2f GFLOP/s", exec_seconds, rate * 1e-9);
        if (dgemm_rate > 0) std::printf(" = %.1f%% of the DGEMM rate", 100 * rate / dgemm_rate);
        std::printf(" (B made on demand: %.3f core-s; longest wait for A: %.3f s)\n", bgen, wait);
        std::printf("flops: executor %.6g = inspector %.6g, %lld GEMMs: %s\n", flops, plan.product.flops, gemms,
                    flops_agree ? "agree" : "DISAGREE");
        std::printf("bytes between ranks: A %s, C %s; host<->device %s%s / %s\n", format_bytes(double(bytes[0])).c_str(),
                    format_bytes(double(bytes[2])).c_str(), backend == Backend::cpu ? "(modelled) " : "",
                    format_bytes(double(bytes[4])).c_str(), format_bytes(double(bytes[5])).c_str());
    }

    // Verification and output.
    Verification v;
    bool verified = false;
    if (a.verify || (a.output_tiles && !a.output.empty())) {
        TileStore<T> all = gather_c_tiles(problem, plan, c_owned, rank, ranks > 1 ? comm : MPI_COMM_NULL);
        if (a.verify) {
            v = collective(comm, [&] {
                return rank == 0 ? verify_dense(problem, plan.product.c_shape, all) : Verification{};
            });
            verified = true;
            if (say || (rank == 0 && !v.passed))
                std::printf("verify: relative error %.3g against the dense reference (<= %.0e): %s (%.2f s)\n",
                            v.relative_error, v.tolerance, v.passed ? "OK" : "FAILED", v.seconds);
            // A failed verification is an error: its line on stderr and a non-zero exit.
            if (rank == 0 && !v.passed) std::fprintf(stderr, "tessel-abcd: %s\n", verification_failure(v).c_str());
        }
        if (!a.output.empty()) {
            const auto norms = c_tile_norms(c_owned, ranks > 1 ? comm : MPI_COMM_NULL);
            collective(comm, [&] {
                if (rank == 0) write_result(a.output, problem, plan.product.c_shape, norms, flops, a.output_tiles ? &all : nullptr);
            });
        }
    } else if (!a.output.empty()) {
        const auto norms = c_tile_norms(c_owned, ranks > 1 ? comm : MPI_COMM_NULL);
        collective(comm, [&] {
            if (rank == 0) write_result<T>(a.output, problem, plan.product.c_shape, norms, flops, nullptr);
        });
    }
    if (say && !a.output.empty()) std::printf("result written to %s\n", a.output.c_str());

    doc["backend"] = er.backend;
    doc["executor_seconds"] = exec_seconds;
    doc["useful_flops"] = flops;
    doc["inspector_flops"] = plan.product.flops;
    doc["gemms"] = gemms;
    doc["flops_agree"] = flops_agree;
    doc["gflops_per_second"] = rate * 1e-9;
    doc["dgemm_reference"] = {{"n", a.dgemm_size},
                              {"gflops_per_second", dgemm_rate * 1e-9},
                              {"threaded_call_gflops", dgemm_rates[0] * 1e-9},
                              {"per_core_calls_gflops", dgemm_rates[1] * 1e-9}};
    doc["fraction_of_dgemm"] = dgemm_rate > 0 ? rate / dgemm_rate : 0.0;
    doc["b_generation_core_seconds"] = bgen;
    doc["a_wait_seconds_max"] = wait;
    doc["bytes_moved"] = {{"a_between_ranks", bytes[0]},
                          {"c_between_ranks", bytes[2]},
                          {"host_to_device", bytes[4]},
                          {"device_to_host", bytes[5]},
                          {"host_device_modelled", backend == Backend::cpu}};
    if (verified)
        doc["verify"] = {{"relative_error", v.relative_error}, {"tolerance", v.tolerance}, {"passed", v.passed}};
    metrics.set_phases(phases);
    if (!a.metrics.empty())
        collective(comm, [&] {
            if (rank == 0) metrics.write(a.metrics);
        });
    if (say && !a.metrics.empty()) std::printf("metrics written to %s\n", a.metrics.c_str());
    int failed = (!flops_agree || (verified && !v.passed)) ? 1 : 0;
    MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
    return failed;
}

int run(int argc, char** argv) {
    MPI_Comm comm = MPI_COMM_WORLD;
    const int rank = rank_of(comm);
    Args a;
    CLI::App app{"tessel-abcd: the CCSD ABCD term R(ij,ab) = sum_cd T(ij,cd) V(cd,ab) as the block-sparse GEMM C = A B "
                 "with irregular tiles (Herault et al. 2020): inspector (column assignment, blocks, chunks), then "
                 "executor (cpu or cuda, MPI over a p x q grid). Run under mpiexec -n P for several ranks."};
    app.option_defaults()->always_capture_default();
    app.add_option("--generator", a.generator, "Problem generator: synthetic or molecule")
        ->check(CLI::IsMember({"synthetic", "molecule"}));
    app.add_option("--problem", a.problem_file, "Problem file (HDF5) written by --save-problem");
    auto* g = "Synthetic generator (paper section 5.1)";
    app.add_option("--m", a.synthetic.m, "Rows M of A and C")->group(g);
    app.add_option("--n", a.synthetic.n, "Columns N of B and C, and K = N")->group(g);
    app.add_option("--tile-min", a.synthetic.tile_min, "Smallest tile size")->group(g);
    app.add_option("--tile-max", a.synthetic.tile_max, "Largest tile size")->group(g);
    app.add_option("--density-a", a.synthetic.density_a, "Element-area density of A in (0, 1]")->group(g);
    app.add_option("--density-b", a.synthetic.density_b, "Element-area density of B in (0, 1]")->group(g);
    auto* mg = "Molecule generator (alkane chain, like C65H132)";
    app.add_option("--length", a.molecule.length, "Carbons L of the chain C_L H_2L+2")->group(mg);
    app.add_option("--basis", a.molecule.basis, "Basis: svp (def2-SVP) or minimal")->group(mg);
    app.add_option("--cluster-size", a.molecule.cluster_size, "Target orbitals per k-means cluster (tile)")->group(mg);
    app.add_option("--v-cutoff", a.molecule.v_cutoff, "V(cd,ab) non-zero when c~a and d~b within this (Angstrom)")->group(mg);
    app.add_option("--t-cutoff", a.molecule.t_cutoff, "T(ij,cd) non-zero when i~c and j~d within this (Angstrom)")->group(mg);
    app.add_option("--pair-cutoff", a.molecule.pair_cutoff, "Occupied pairs ij kept within this (Angstrom)")->group(mg);
    app.add_option("--seed", a.seed, "Seed of the generators and of the tile values");
    app.add_option("--save-problem", a.save_problem, "Write the problem (tilings, shapes) to this HDF5 file");
    app.add_flag("--save-tiles", a.save_tiles, "With --save-problem: store the tile values of A and B too");
    app.add_option("--grid", a.grid, "Process grid PxQ (default 1 x ranks)");
    app.add_option("--column-assignment", a.column_assignment,
                   "mirrored: the paper's mirrored-cyclic order by flops; refined: then moves and swaps of columns "
                   "between the most and least loaded processes")
        ->check(CLI::IsMember({"mirrored", "refined"}));
    app.add_option("--device-memory", a.device_memory,
                   "Memory budget per device in bytes (K/M/G suffixes); default: GPU free memory on cuda, a quarter of "
                   "host memory per rank on cpu");
    app.add_option("--backend", a.backend, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    app.add_option("--threads", a.threads, "Threads per rank (default: cores / ranks on the node)");
    app.add_option("--precision", a.precision, "double or float")->check(CLI::IsMember({"double", "float"}));
    app.add_flag("--verify", a.verify, "Compare with a dense reference GEMM (small problems)");
    app.add_option("--output", a.output, "Write R's shape and tile norms to this HDF5 file");
    app.add_flag("--output-tiles", a.output_tiles, "With --output: write R's tiles too");
    app.add_option("--metrics", a.metrics, "Write JSON metrics to this file");
    app.add_option("--dgemm-size", a.dgemm_size, "Size of the square DGEMM timed as the reference rate (0: skip)");
    app.add_flag("--plan-only", a.plan_only, "Run the inspector and report the plan, no arithmetic");
    auto* tg = "Tile-size advice (predicted from this machine's GEMM rate per tile shape)";
    app.add_flag("--advise-tiles", a.advise_tiles,
                 "Print the candidate tilings (molecule: cluster sizes; others: consecutive tiles merged) with their "
                 "flops, GEMMs, predicted executor time and memory, and the recommendation; then stop")
        ->group(tg);
    app.add_option("--tiling", a.tiling, "given: the tiles as made; auto: run with the recommended candidate")
        ->check(CLI::IsMember({"given", "auto"}))
        ->group(tg);
    app.add_option("--rate-table", a.rate_table,
                   "Use this GEMM rate table (JSON, as cached by --calibrate) instead of this machine's")
        ->group(tg);
    app.add_flag("--measure-candidates", a.measure_candidates,
                 "With --advise-tiles or --tiling auto: run the executor on every candidate and print the measured time")
        ->group(tg);
    app.add_flag("--calibrate", a.calibrate, "Measure this machine's GEMM rate table again (cached in $TESSEL_CACHE_DIR, "
                                             "$XDG_CACHE_HOME/tessel or ~/.cache/tessel)")
        ->group(tg);
    app.add_flag("--verbose", a.verbose, "Per-process plan, per-rank executor lines, kernel choices");
    app.add_flag("--quiet", a.quiet, "Print nothing but errors");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        if (rank == 0) app.exit(e);
        return 0;
    } catch (const CLI::ParseError& e) {
        if (rank == 0) std::fprintf(stderr, "tessel-abcd: %s\n", e.what());
        return 1;
    }
    // Outputs are checked before any work (rank 0 writes them).
    collective(comm, [&] {
        if (rank != 0) return;
        if (!a.output.empty()) io::check_writable(a.output, "--output");
        if (!a.metrics.empty()) io::check_writable(a.metrics, "--metrics");
        if (!a.save_problem.empty()) io::check_writable(a.save_problem, "--save-problem");
    });
    // Threads: --threads, else OMP_NUM_THREADS, else the node's cores shared among its ranks
    // (no more than the cores this rank may run on: mpiexec binds ranks to cores by default).
    const int allowed = cores_allowed();
    if (a.threads > 0) {
        omp_set_num_threads(a.threads);
    } else if (!std::getenv("OMP_NUM_THREADS")) {
        const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        omp_set_num_threads(std::max(1, std::min(allowed, cores / local_ranks(comm))));
    }
    if (allowed < omp_get_max_threads() && !a.quiet)
        std::fprintf(stderr,
                     "tessel-abcd: note: rank %d runs %d threads on %d core(s) it is bound to; with several threads "
                     "per rank use mpiexec --bind-to none (or --map-by slot:PE=%d)\n",
                     rank, omp_get_max_threads(), allowed, omp_get_max_threads());
    const Precision precision = parse_precision(a.precision);
    return precision == Precision::float64 ? run_typed<double>(a, comm) : run_typed<float>(a, comm);
}

}  // namespace

int main(int argc, char** argv) { return tessel::app::run_mpi_app("tessel-abcd", argc, argv, run); }
