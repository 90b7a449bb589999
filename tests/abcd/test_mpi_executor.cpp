// The executor on MPI_COMM_WORLD (run under mpiexec -n 1, 2, 4): several grids and budgets
// against the dense reference, and the bytes that moved between ranks equal the plan's.
#include <catch2/catch.hpp>

#include <mpi.h>
#include <omp.h>

#include <chrono>
#include <thread>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "apps/ccsd_abcd/results/result_gather.hpp"

using namespace tessel;
using namespace tessel::abcd;

namespace {

std::vector<std::string> grids_for(int ranks) {
    std::vector<std::string> g{""};  // 1 x ranks
    if (ranks >= 2) g.push_back("2x1");
    if (ranks >= 4) {
        g.push_back("2x2");
        g.push_back("1x3");  // one rank idle
    }
    return g;
}

void check_grid(const Problem& p, const std::string& grid, size_type budget, bool expect_a_moves = false) {
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    InspectorOptions io;
    io.grid = ProcessGrid::parse(grid, ranks);
    io.device_memory = budget;
    const Plan plan = inspect(p, io);
    auto a = make_local_a<double>(p, plan.grid, rank);
    TileStore<double> c;
    ExecutorOptions eo;
    eo.backend = Backend::cpu;
    eo.comm = ranks > 1 ? comm : MPI_COMM_NULL;
    eo.rank = rank;
    const ExecutionResult r = execute<double>(p, plan, a, c, eo);
    double flops = r.flops;
    long long moved[4] = {r.a_sent_bytes, r.a_received_bytes, r.c_sent_bytes, r.c_received_bytes};
    MPI_Allreduce(MPI_IN_PLACE, &flops, 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, moved, 4, MPI_LONG_LONG, MPI_SUM, comm);
    CHECK(flops == plan.product.flops);
    CHECK(moved[0] == plan.total(&ProcessPlan::a_send_bytes));
    CHECK(moved[1] == plan.total(&ProcessPlan::a_recv_bytes));
    CHECK(moved[2] == plan.total(&ProcessPlan::c_send_bytes));
    CHECK(moved[3] == plan.total(&ProcessPlan::c_recv_bytes));
    if (expect_a_moves && plan.grid.q > 1) CHECK(moved[1] > 0);
    // Only the ranks of the grid row that need a tile get it: never more than (q - 1) copies.
    CHECK(moved[1] <= static_cast<long long>((plan.grid.q - 1) * p.a_shape.area(p.m_tiling, p.k_tiling) * 8));
    const auto all = gather_c_tiles(p, plan, c, rank, ranks > 1 ? comm : MPI_COMM_NULL);
    if (rank == 0) {
        const auto v = verify_dense(p, plan.product.c_shape, all);
        CHECK(v.relative_error <= 1e-12);
    }
}

// A synthetic problem's options: m x n, tiles of tile_min..tile_max, densities of A and B.
SyntheticOptions synthetic(size_type m, size_type n, size_type tile_min, size_type tile_max, double density_a,
                           double density_b, std::uint64_t seed) {
    SyntheticOptions o;
    o.m = m;
    o.n = n;
    o.tile_min = tile_min;
    o.tile_max = tile_max;
    o.density_a = density_a;
    o.density_b = density_b;
    o.seed = seed;
    return o;
}

}  // namespace

TEST_CASE("distributed executor on every grid equals the dense reference", "[abcd][mpi]") {
    const Problem p = synthetic_problem(synthetic(640, 2000, 40, 170, 0.4, 0.15, 31));
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (const auto& grid : grids_for(ranks))
        for (size_type budget : {size_type(1) << 30, size_type(3) << 20}) {
            INFO("grid '" << grid << "' budget " << budget);
            check_grid(p, grid, budget, true);
        }
}

TEST_CASE("distributed executor with empty columns and a single tile", "[abcd][mpi]") {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const Problem empty = test::hand_problem({7, 5, 9, 4}, {4, 6, 3}, {5, 2, 8, 6, 3},
                                             {{0, 0}, {0, 1}, {2, 1}, {3, 0}}, {{0, 0}, {1, 0}, {1, 1}, {2, 3}, {0, 4}});
    const Problem single = test::hand_problem({7}, {9}, {5}, {{0, 0}}, {{0, 0}});
    for (const auto& grid : grids_for(ranks)) {
        INFO("grid '" << grid << "'");
        check_grid(empty, grid, 1 << 20);
        check_grid(single, grid, 1 << 20);
    }
}

TEST_CASE("A tiles that arrive late, with two threads per rank: nobody waits on work only another thread does",
          "[abcd][mpi]") {
    // Rank 0 starts computing while the others hold back their A tiles: its second thread then
    // waits for tiles that only the master thread's MPI progress brings in, after the master
    // thread may have run out of tasks (the executor used to let it wait at the barrier: a hang).
    const Problem p = synthetic_problem(synthetic(800, 2400, 24, 90, 0.5, 0.2, 77));
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(2);
    for (int delayed_round = 0; delayed_round < 3; ++delayed_round) {
        InspectorOptions io;
        io.grid = ProcessGrid::parse("", ranks);
        io.device_memory = size_type(4) << 20;
        const Plan plan = inspect(p, io);
        auto a = make_local_a<double>(p, plan.grid, rank);
        TileStore<double> c;
        ExecutorOptions eo;
        eo.backend = Backend::cpu;
        eo.comm = ranks > 1 ? comm : MPI_COMM_NULL;
        eo.rank = rank;
        if (rank != 0) std::this_thread::sleep_for(std::chrono::milliseconds(150));
        const ExecutionResult r = execute<double>(p, plan, a, c, eo);
        double flops = r.flops;
        MPI_Allreduce(MPI_IN_PLACE, &flops, 1, MPI_DOUBLE, MPI_SUM, comm);
        CHECK(flops == plan.product.flops);
        const auto all = gather_c_tiles(p, plan, c, rank, ranks > 1 ? comm : MPI_COMM_NULL);
        if (rank == 0) CHECK(verify_dense(p, plan.product.c_shape, all).relative_error <= 1e-12);
    }
    omp_set_num_threads(threads);
}
