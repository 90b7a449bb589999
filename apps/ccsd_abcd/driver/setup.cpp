#include "apps/ccsd_abcd/driver/setup.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "apps/ccsd_abcd/driver/mpi.hpp"
#include "apps/ccsd_abcd/problem/problem_file.hpp"
#include "core/app/byte_size.hpp"
#include "core/app/machine.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace tessel::abcd::driver {

namespace {

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

// Advice for a GPU machine prepared where there is none (a login node): --advise-tiles with a
// cuda rate table and --device-memory runs nothing on a device.
bool advice_needs_no_device(const Args& a) {
    return a.advise_tiles && a.tiling != "auto" && !a.measure_candidates && !a.calibrate && !a.rate_table.empty() &&
           !a.device_memory.empty();
}

// cuda: the node's GPUs shared out among its ranks (the paper runs several per process).
void share_out_devices(RunSetup& s, int on_node, int local_rank, MPI_Comm comm) {
    s.inspector.devices = 1;
    s.first_device = 0;
    if (s.backend != Backend::cuda) return;
    int per_rank = std::max(1, cuda::device_count() / on_node);
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &per_rank, 1, MPI_INT, MPI_MIN, comm));
    s.inspector.devices = per_rank;
    s.first_device = local_rank * per_rank;
}

// --device-memory, else 90% of the GPU's free memory, else a quarter of host memory per rank.
void choose_budget(const Args& a, RunSetup& s, int on_node, MPI_Comm comm) {
    InspectorOptions& io = s.inspector;
    if (!a.device_memory.empty()) {
        io.device_memory = collective(
            comm, [&] { return static_cast<size_type>(app::parse_bytes(a.device_memory, "--device-memory")); });
        s.budget_note = "given";
    } else if (s.backend == Backend::cuda) {
        // 90% of the free memory leaves room for cuBLAS's workspace; what an earlier run of the
        // executor keeps on the device is free to this one.
        auto free_on = [](int d) { return cuda::device_free_memory(d) + kept_device_bytes(d); };
        size_type free_bytes = free_on(s.first_device);
        for (int d = 1; d < io.devices; ++d) free_bytes = std::min(free_bytes, free_on(s.first_device + d));
        TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &free_bytes, 1, MPI_INT64_T, MPI_MIN, comm));
        io.device_memory = free_bytes / 10 * 9;
        s.budget_note = "90% of the GPU's free memory";
    } else {
        io.device_memory = static_cast<size_type>(host_memory_bytes()) / 4 / on_node;
        s.budget_note = "cpu default: a quarter of host memory per rank on the node";
    }
}

}  // namespace

void check_outputs(const Args& a, MPI_Comm comm) {
    const int rank = rank_of(comm);
    collective(comm, [&] {
        if (rank != 0) return;
        if (!a.output.empty()) io::check_writable(a.output, "--output");
        if (!a.metrics.empty()) io::check_writable(a.metrics, "--metrics");
        if (!a.save_problem.empty()) io::check_writable(a.save_problem, "--save-problem");
    });
}

void set_threads(const Args& a, MPI_Comm comm) {
    // mpiexec binds ranks to cores by default: no more threads than the cores this rank may use.
    const int allowed = cores_allowed();
    if (a.threads > 0) {
        omp_set_num_threads(a.threads);
    } else if (!std::getenv("OMP_NUM_THREADS")) {
        const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        omp_set_num_threads(std::max(1, std::min(allowed, cores / ranks_on_node(comm))));
    }
    if (allowed < omp_get_max_threads() && !a.quiet)
        std::fprintf(stderr,
                     "tessel-abcd: note: rank %d runs %d threads on %d core(s) it is bound to; with several threads "
                     "per rank use mpiexec --bind-to none (or --map-by slot:PE=%d)\n",
                     rank_of(comm), omp_get_max_threads(), allowed, omp_get_max_threads());
}

Problem make_problem(const Args& a, Precision precision, MPI_Comm comm, MoleculeSummary* molecule) {
    return collective(comm, [&] {
        Problem p = build_problem(a, molecule);
        p.precision = precision;
        return p;
    });
}

void print_problem(const Args& a, const Problem& problem, const MoleculeSummary& mol, int ranks) {
    const bool in_double = problem.precision == Precision::float64;
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
                app::format_bytes(problem.b_shape.area(problem.k_tiling, problem.n_tiling) *
                             double(value_bytes(problem.precision)))
                    .c_str());
    std::printf("values: %s, %s precision; %d rank(s) x %d thread(s)\n", problem.values->describe().c_str(),
                in_double ? "double" : "float", ranks, omp_get_max_threads());
}

void save_problem_if_asked(const Args& a, const Problem& problem, MPI_Comm comm, bool say) {
    if (a.save_problem.empty()) return;
    const int rank = rank_of(comm);
    collective(comm, [&] {
        if (rank == 0) save_problem(problem, a.save_problem, a.save_tiles);
    });
    if (say) std::printf("problem saved to %s%s\n", a.save_problem.c_str(), a.save_tiles ? " (with tiles)" : "");
}

RunSetup choose_backend_and_budget(const Args& a, const Problem& problem, MPI_Comm comm) {
    RunSetup s;
    s.backend = collective(comm, [&] {
        const Backend b = choose_backend(parse_backend(a.backend), &s.backend_why);
        if (!advice_needs_no_device(a)) require_backend(b);
        return b;
    });
    const int ranks = size_of(comm);
    s.inspector.grid = collective(comm, [&] { return ProcessGrid::parse(a.grid, ranks); });
    s.inspector.precision = problem.precision;
    s.inspector.refine_columns = a.column_assignment == "refined";
    int local_rank = 0;
    const int on_node = ranks_on_node(comm, &local_rank);
    share_out_devices(s, on_node, local_rank, comm);
    choose_budget(a, s, on_node, comm);
    return s;
}

}  // namespace tessel::abcd::driver
