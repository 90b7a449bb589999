// tessel-bench-abcd: tessel-abcd's cpu executor side by side with libDBCSR (c_dbcsr_multiply_d)
// on the same block-sparse problem, ranks and cores, against the machine's DGEMM rate measured
// in the same run. Prints a table and writes JSON.
#include <mpi.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "apps/ccsd_abcd/advice/dgemm_rate.hpp"
#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/executor/tile_memory.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "apps/ccsd_abcd/problem/molecule_generator.hpp"
#include "apps/ccsd_abcd/problem/problem_file.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "apps/ccsd_abcd/results/result_gather.hpp"
#include "core/app/byte_size.hpp"
#include "core/app/run_mpi_app.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"
#include "io/atomic_output.hpp"

#ifdef TESSEL_BENCH_HAVE_DBCSR
#include <dbcsr.h>
#endif

namespace {

using namespace tessel;
using namespace tessel::abcd;

struct Args {
    std::string generator = "synthetic", problem_file, grid, device_memory, json, label, dbcsr_grids = "all",
        column_assignment = "refined";
    SyntheticOptions synthetic;
    MoleculeOptions molecule;
    std::uint64_t seed = 1;
    int repeat = 3;
    size_type dgemm_size = 2048;
    bool no_dbcsr = false;
};

struct Timing {
    double best = 1e300;
    double flops = 0;
    double c_norm = 0;
    std::string note;
};

double max_over(MPI_Comm comm, double v) {
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm);
    return v;
}

// tessel: inspector once, then the executor `repeat` times (A re-made untimed each time).
Timing run_tessel(const Problem& p, const Plan& plan, int rank, int ranks, int repeat) {
    Timing t;
    for (int r = 0; r < repeat; ++r) {
        auto a = make_local_a<double>(p, plan.grid, rank);
        TileStore<double> c;
        ExecutorOptions eo;
        eo.backend = Backend::cpu;
        eo.comm = ranks > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL;
        eo.rank = rank;
        MPI_Barrier(MPI_COMM_WORLD);
        Timer timer;
        const auto res = execute<double>(p, plan, a, c, eo);
        MPI_Barrier(MPI_COMM_WORLD);
        const double s = max_over(MPI_COMM_WORLD, timer.seconds());
        t.best = std::min(t.best, s);
        double f = res.flops;
        MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t.flops = f;
        if (r == 0) {
            const auto norms = c_tile_norms(c, ranks > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL);
            double sq = 0;
            for (double n : norms) sq += n * n;
            t.c_norm = std::sqrt(sq);
        }
    }
    return t;
}

#ifdef TESSEL_BENCH_HAVE_DBCSR
// libDBCSR on a dims[0] x dims[1] Cartesian grid, blocks round-robin (as its examples do),
// the same tiles; C = A·B timed `repeat` times with a barrier on each side.
Timing run_dbcsr(const Problem& p, int dims0, int dims1, int repeat) {
    Timing t;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int dims[2] = {dims0, dims1}, periods[2] = {1, 1};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    auto sizes = [](const Tiling& tl) {
        std::vector<int> s;
        for (auto v : tl.sizes()) s.push_back(static_cast<int>(v));
        return s;
    };
    auto dist_of = [](size_type n, int bins) {
        std::vector<int> d(static_cast<std::size_t>(n));
        for (size_type i = 0; i < n; ++i) d[i] = static_cast<int>(i % bins);
        return d;
    };
    auto m = sizes(p.m_tiling), k = sizes(p.k_tiling), n = sizes(p.n_tiling);
    auto rm = dist_of(p.m_tiling.count(), dims[0]), rk = dist_of(p.k_tiling.count(), dims[0]);
    auto ck = dist_of(p.k_tiling.count(), dims[1]), cn = dist_of(p.n_tiling.count(), dims[1]);
    dbcsr_distribution da = nullptr, db = nullptr, dc = nullptr;
    c_dbcsr_distribution_new(&da, cart, rm.data(), (int)rm.size(), ck.data(), (int)ck.size());
    c_dbcsr_distribution_new(&db, cart, rk.data(), (int)rk.size(), cn.data(), (int)cn.size());
    c_dbcsr_distribution_new(&dc, cart, rm.data(), (int)rm.size(), cn.data(), (int)cn.size());
    dbcsr_matrix a = nullptr, b = nullptr, c = nullptr;
    c_dbcsr_create_new(&a, "T", da, dbcsr_type_no_symmetry, m.data(), (int)m.size(), k.data(), (int)k.size(), nullptr,
                       &dbcsr_type_real_8, nullptr, nullptr, nullptr, nullptr);
    c_dbcsr_create_new(&b, "V", db, dbcsr_type_no_symmetry, k.data(), (int)k.size(), n.data(), (int)n.size(), nullptr,
                       &dbcsr_type_real_8, nullptr, nullptr, nullptr, nullptr);
    c_dbcsr_create_new(&c, "R", dc, dbcsr_type_no_symmetry, m.data(), (int)m.size(), n.data(), (int)n.size(), nullptr,
                       &dbcsr_type_real_8, nullptr, nullptr, nullptr, nullptr);
    auto fill = [&](dbcsr_matrix mat, const TileShape& s, const Tiling& rt, const Tiling& ct, Operand which) {
        std::vector<double> tile;
        for (size_type i = 0; i < s.rows(); ++i)
            for (size_type e = s.row_ptr()[i]; e < s.row_ptr()[i + 1]; ++e) {
                const size_type j = s.col_idx()[e];
                int owner = -1;
                c_dbcsr_get_stored_coordinates(mat, static_cast<int>(i), static_cast<int>(j), &owner);
                if (owner != rank) continue;
                tile.resize(static_cast<std::size_t>(rt.size(i) * ct.size(j)));
                p.values->fill(which, i, j, tile.data());  // column-major, as DBCSR stores blocks
                c_dbcsr_put_block2d_d(mat, static_cast<int>(i), static_cast<int>(j), tile.data(),
                                      static_cast<int>(rt.size(i)), static_cast<int>(ct.size(j)), nullptr, nullptr);
            }
        c_dbcsr_finalize(mat);
    };
    fill(a, p.a_shape, p.m_tiling, p.k_tiling, Operand::a);
    fill(b, p.b_shape, p.k_tiling, p.n_tiling, Operand::b);
    c_dbcsr_finalize(c);
    for (int r = 0; r < repeat; ++r) {
        long long flop = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        Timer timer;
        c_dbcsr_multiply_d('N', 'N', 1.0, a, b, 0.0, c, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                           nullptr, &flop);
        MPI_Barrier(MPI_COMM_WORLD);
        t.best = std::min(t.best, max_over(MPI_COMM_WORLD, timer.seconds()));
        double f = double(flop);
        MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t.flops = f;
    }
    t.c_norm = c_dbcsr_frobenius_norm(c, nullptr);
    t.note = std::to_string(dims0) + "x" + std::to_string(dims1);
    c_dbcsr_release(&a);
    c_dbcsr_release(&b);
    c_dbcsr_release(&c);
    c_dbcsr_distribution_release(&da);
    c_dbcsr_distribution_release(&db);
    c_dbcsr_distribution_release(&dc);
    MPI_Comm_free(&cart);
    return t;
}
#endif

// Parses the command line into `a`; returns the exit code when the program should stop here.
std::optional<int> parse_args(int argc, char** argv, int rank, Args& a) {
    CLI::App app{"tessel-bench-abcd: tessel-abcd (cpu) against libDBCSR on the same block-sparse problem"};
    app.option_defaults()->always_capture_default();
    app.add_option("--generator", a.generator, "synthetic or molecule")->check(CLI::IsMember({"synthetic", "molecule"}));
    app.add_option("--problem", a.problem_file, "Problem file (HDF5) instead of a generator");
    app.add_option("--m", a.synthetic.m, "synthetic: rows M");
    app.add_option("--n", a.synthetic.n, "synthetic: N = K");
    app.add_option("--tile-min", a.synthetic.tile_min, "synthetic: smallest tile");
    app.add_option("--tile-max", a.synthetic.tile_max, "synthetic: largest tile");
    app.add_option("--density-a", a.synthetic.density_a, "synthetic: density of A");
    app.add_option("--density-b", a.synthetic.density_b, "synthetic: density of B");
    app.add_option("--length", a.molecule.length, "molecule: carbons");
    app.add_option("--basis", a.molecule.basis, "molecule: svp or minimal");
    app.add_option("--cluster-size", a.molecule.cluster_size, "molecule: orbitals per cluster");
    app.add_option("--seed", a.seed, "Seed");
    app.add_option("--grid", a.grid, "tessel process grid PxQ (default 1 x ranks)");
    app.add_option("--column-assignment", a.column_assignment, "tessel: mirrored or refined")
        ->check(CLI::IsMember({"mirrored", "refined"}));
    app.add_option("--device-memory", a.device_memory, "tessel budget per device (default: a quarter of host memory per rank)");
    app.add_option("--dbcsr-grids", a.dbcsr_grids, "DBCSR grids: 'all' (every PxQ = ranks, best kept) or 'PxQ'");
    app.add_option("--repeat", a.repeat, "Timed repetitions (best kept)");
    app.add_option("--dgemm-size", a.dgemm_size, "Square DGEMM timed as the reference rate");
    app.add_option("--label", a.label, "Name of the problem in the table");
    app.add_option("--json", a.json, "Write the results as JSON");
    app.add_flag("--no-dbcsr", a.no_dbcsr, "Skip libDBCSR");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (rank == 0) app.exit(e);
        return e.get_exit_code();
    }
    return std::nullopt;
}

// The problem of the command line: a file, else the generator with the seed.
Problem make_problem(Args& a) {
    if (!a.problem_file.empty()) return load_problem(a.problem_file);
    if (a.generator == "molecule") {
        a.molecule.seed = a.seed;
        MoleculeSummary mol;
        return molecule_problem(a.molecule, &mol);
    }
    a.synthetic.seed = a.seed;
    return synthetic_problem(a.synthetic);
}

// tessel's plan for `ranks` (default budget 4 GiB per device).
Plan make_plan(const Args& a, const Problem& p, int ranks) {
    InspectorOptions io;
    io.grid = ProcessGrid::parse(a.grid, ranks);
    io.refine_columns = a.column_assignment == "refined";
    io.device_memory = a.device_memory.empty()
                           ? size_type(4) << 30
                           : static_cast<size_type>(app::parse_bytes(a.device_memory, "--device-memory"));
    MPI_Barrier(MPI_COMM_WORLD);
    return inspect(p, io);
}

void print_problem(const Problem& p, const Plan& plan, int ranks, int threads) {
    std::printf("problem: %s\n  M=%lld N=K=%lld, densities A %.3f B %.3f C %.3f, %.4g GFLOP, %lld tile GEMMs; %d rank(s) x %d thread(s)\n",
                p.description.c_str(), (long long)p.m(), (long long)p.n(), p.density_a(), p.density_b(),
                plan.product.c_shape.density(p.m_tiling, p.n_tiling), plan.product.flops * 1e-9,
                (long long)plan.product.gemms, ranks, threads);
    std::fputs(plan.describe(false).c_str(), stdout);
    std::fflush(stdout);
}

// The machine's DGEMM rate in this run: every rank at once, rates summed.
struct DgemmReference {
    double best = 0, one_call = 0, concurrent = 0;
};

DgemmReference measure_dgemm_reference(size_type n, int threads) {
    MPI_Barrier(MPI_COMM_WORLD);
    const DgemmRate d = measure_dgemm_rate(n, threads);
    double rates[2] = {d.one_call, d.concurrent};
    MPI_Allreduce(MPI_IN_PLACE, rates, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return {std::max(rates[0], rates[1]), rates[0], rates[1]};
}

// libDBCSR on every grid asked for, the fastest kept; nothing when it is not built or skipped.
std::optional<Timing> run_peer(const Args& a, const Problem& p, int rank, int ranks) {
#ifdef TESSEL_BENCH_HAVE_DBCSR
    if (a.no_dbcsr) return std::nullopt;
    Timing peer;
    c_dbcsr_init_lib(MPI_COMM_WORLD, nullptr);
    cpu::BlasThreads single(1);  // DBCSR threads with OpenMP; its BLAS calls run inside them
    std::vector<std::pair<int, int>> grids;
    if (a.dbcsr_grids == "all") {
        for (int d = 1; d <= ranks; ++d)
            if (ranks % d == 0) grids.emplace_back(d, ranks / d);
    } else {
        const ProcessGrid g = ProcessGrid::parse(a.dbcsr_grids, ranks);
        grids.emplace_back(g.p, g.q);
    }
    for (auto [d0, d1] : grids) {
        const Timing t = run_dbcsr(p, d0, d1, a.repeat);
        if (rank == 0) std::printf("  DBCSR grid %dx%d: %.3f s\n", d0, d1, t.best);
        if (t.best < peer.best) peer = t;
    }
    c_dbcsr_finalize_lib();
    return peer;
#else
    (void)a, (void)p, (void)rank, (void)ranks;
    return std::nullopt;
#endif
}

// Everything measured, for the table and the JSON.
struct Results {
    std::string label;
    int ranks = 1, threads = 1;
    double inspector = 0;
    DgemmReference dgemm;
    Timing ours;
    std::optional<Timing> peer;
};

void print_table(const Results& r, size_type dgemm_size) {
    const double our_rate = r.ours.flops / r.ours.best, peer_rate = r.peer ? r.peer->flops / r.peer->best : 0;
    const double dgemm = r.dgemm.best;
    std::printf("\n%-28s %5s %9s %8s %9s %7s %8s | %8s %9s %7s | %7s\n", "problem", "ranks", "GFLOP", "insp s", "tessel s",
                "GFLOP/s", "%DGEMM", "DBCSR s", "GFLOP/s", "%DGEMM", "ratio");
    std::printf("%-28s %2dx%-2d %9.1f %8.3f %9.3f %7.1f %7.1f%% | ", r.label.substr(0, 28).c_str(), r.ranks, r.threads,
                r.ours.flops * 1e-9, r.inspector, r.ours.best, our_rate * 1e-9, 100 * our_rate / dgemm);
    if (r.peer)
        std::printf("%8.3f %9.1f %6.1f%% | %6.2fx\n", r.peer->best, peer_rate * 1e-9, 100 * peer_rate / dgemm,
                    our_rate / peer_rate);
    else
        std::printf("%8s %9s %7s | %7s\n", "-", "-", "-", "-");
    std::printf("DGEMM reference (n = %lld, all ranks at once): %.1f GFLOP/s (threaded calls %.1f, one single-threaded "
                "call per core %.1f)\n",
                (long long)dgemm_size, dgemm * 1e-9, r.dgemm.one_call * 1e-9, r.dgemm.concurrent * 1e-9);
    if (r.peer)
        std::printf("check: ||C||_F tessel %.12g, DBCSR %.12g (relative difference %.1e); flops tessel %.6g, DBCSR %.6g\n",
                    r.ours.c_norm, r.peer->c_norm, std::abs(r.ours.c_norm - r.peer->c_norm) / r.peer->c_norm,
                    r.ours.flops, r.peer->flops);
}

void write_json(const std::string& path, const Results& r, const Problem& p, const Plan& plan) {
    const double our_rate = r.ours.flops / r.ours.best, peer_rate = r.peer ? r.peer->flops / r.peer->best : 0;
    const double dgemm = r.dgemm.best;
    nlohmann::json j;
    j["machine"] = machine_description();
    j["problem"] = {{"description", p.description}, {"label", r.label}, {"m", p.m()}, {"n", p.n()},
                    {"density_a", p.density_a()}, {"density_b", p.density_b()}, {"flops", plan.product.flops}};
    j["ranks"] = r.ranks;
    j["threads_per_rank"] = r.threads;
    j["dgemm_gflops"] = dgemm * 1e-9;
    j["dgemm_threaded_call_gflops"] = r.dgemm.one_call * 1e-9;
    j["dgemm_per_core_calls_gflops"] = r.dgemm.concurrent * 1e-9;
    j["inspector_seconds"] = r.inspector;
    j["tessel"] = {{"seconds", r.ours.best}, {"gflops", our_rate * 1e-9}, {"fraction_of_dgemm", our_rate / dgemm},
                   {"grid", plan.grid.describe()}, {"c_norm", r.ours.c_norm}};
    if (r.peer)
        j["dbcsr"] = {{"seconds", r.peer->best}, {"gflops", peer_rate * 1e-9}, {"fraction_of_dgemm", peer_rate / dgemm},
                      {"grid", r.peer->note}, {"c_norm", r.peer->c_norm}, {"flops", r.peer->flops}};
    write_file_atomically(path, j.dump(2) + "\n");
}

int run(int argc, char** argv) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    Args a;
    if (const auto stop = parse_args(argc, argv, rank, a)) return *stop;
    if (!a.json.empty()) io::check_writable(a.json, "--json");  // at start, not after the runs
    const Problem p = make_problem(a);
    Results r;
    r.ranks = ranks;
    r.threads = omp_get_max_threads();
    const Plan plan = make_plan(a, p, ranks);
    r.inspector = max_over(MPI_COMM_WORLD, plan.seconds);
    if (rank == 0) print_problem(p, plan, ranks, r.threads);
    r.dgemm = measure_dgemm_reference(a.dgemm_size, r.threads);
    r.ours = run_tessel(p, plan, rank, ranks, a.repeat);
    tile_memory::trim();  // the buffers kept between tessel's repetitions, before DBCSR allocates
    r.peer = run_peer(a, p, rank, ranks);
    if (rank == 0) {
        r.label = a.label.empty() ? p.description : a.label;
        print_table(r, a.dgemm_size);
        if (!a.json.empty()) write_json(a.json, r, p, plan);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) { return tessel::app::run_mpi_app("tessel-bench-abcd", argc, argv, run); }
