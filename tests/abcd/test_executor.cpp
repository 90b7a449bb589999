// The cpu executor on one process against the dense reference GEMM: budgets that force many
// blocks and chunks, empty rows and columns, a single tile, float; the executor's flops and
// GEMMs equal the inspector's.
#include <catch2/catch.hpp>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"

using namespace tessel;
using namespace tessel::abcd;

namespace {
Problem small_synthetic(std::uint64_t seed) {
    SyntheticOptions o;
    o.m = 500;
    o.n = 1800;
    o.tile_min = 32;
    o.tile_max = 180;
    o.density_a = 0.45;
    o.density_b = 0.2;
    o.seed = seed;
    return synthetic_problem(o);
}

// The smallest budget the inspector accepts for this problem (it says so in its error).
size_type smallest_budget(const Problem& p) {
    try {
        inspect(p, test::one_process(64));
    } catch (const OutOfMemoryBudget& e) {
        const std::string m = e.message();
        const auto at = m.find("at least ");
        return std::stoll(m.substr(at + 9));
    }
    return 64;
}
}  // namespace

TEST_CASE("executor equals the dense reference for budgets from one block to many", "[abcd]") {
    const Problem p = small_synthetic(21);
    const size_type tight = smallest_budget(p);
    for (size_type budget : {size_type(1) << 30, 6 * tight, tight}) {
        INFO("budget " << budget);
        const auto run = test::run_serial<double>(p, test::one_process(budget));
        CHECK(run.check.relative_error <= 1e-12);
        CHECK(run.result.flops == run.plan.product.flops);
        CHECK(run.result.gemms == run.plan.product.gemms);
        CHECK(run.result.blocks == static_cast<size_type>(run.plan.processes[0].blocks.size()));
        CHECK(run.result.chunks == run.plan.processes[0].chunk_count());
        if (budget == tight) {
            CHECK(run.result.blocks > 5);
            CHECK(run.result.chunks > run.result.blocks);
        }
        if (budget == size_type(1) << 30) CHECK(run.result.blocks == 1);
    }
}

TEST_CASE("empty tile rows of A and columns of C are handled", "[abcd]") {
    // Row 1 of A is empty; column 2 of B is empty; column 3 of B only meets k = 2, which A lacks.
    const Problem p = test::hand_problem({7, 5, 9}, {4, 6, 3}, {5, 2, 8, 6},
                                         {{0, 0}, {0, 1}, {2, 1}},
                                         {{0, 0}, {1, 0}, {1, 1}, {2, 3}});
    const auto run = test::run_serial<double>(p, test::one_process(1 << 20));
    CHECK(run.plan.product.c_shape.nnz() == 4);  // (0,0) (0,1) (2,0) (2,1)
    CHECK(run.plan.processes[0].columns == std::vector<size_type>{0, 1});
    CHECK(run.check.relative_error <= 1e-12);
    CHECK(run.check.reference_norm > 0);
    CHECK(run.result.flops == run.plan.product.flops);
}

TEST_CASE("a single tile", "[abcd]") {
    const Problem p = test::hand_problem({7}, {9}, {5}, {{0, 0}}, {{0, 0}});
    const auto run = test::run_serial<double>(p, test::one_process(1 << 20));
    CHECK(run.plan.product.flops == 2.0 * 7 * 9 * 5);
    CHECK(run.result.gemms == 1);
    CHECK(run.check.relative_error <= 1e-12);
}

TEST_CASE("float tiles agree with the double reference to float accuracy", "[abcd]") {
    const Problem p = small_synthetic(22);
    const auto run = test::run_serial<float>(p, test::one_process(8 << 20, Precision::float32));
    CHECK(run.check.relative_error <= 1e-4);
    CHECK(run.check.relative_error > 0);
    CHECK(run.result.flops == run.plan.product.flops);
}

TEST_CASE("the cuda backend says whether it is in the build", "[abcd]") {
    std::string why;
    CHECK(choose_backend(Backend::cpu, &why) == Backend::cpu);
    const Backend automatic = choose_backend(Backend::automatic, &why);
    CHECK(!why.empty());
    if (cuda::device_count() == 0) {
        CHECK(automatic == Backend::cpu);
#ifndef TESSEL_HAVE_CUDA
        const Problem p = test::hand_problem({7}, {9}, {5}, {{0, 0}}, {{0, 0}});
        const Plan plan = inspect(p, test::one_process(1 << 20));
        auto a = make_local_a<double>(p, plan.grid, 0);
        TileStore<double> c;
        ExecutorOptions eo;
        eo.backend = Backend::cuda;
        CHECK_THROWS_AS(execute<double>(p, plan, a, c, eo), NotCompiled);
#endif
    }
}

TEST_CASE("cuda executor equals the dense reference", "[abcd][cuda]") {
    if (cuda::device_count() == 0) {
        WARN("no CUDA device (or CUDA not in this build): the cuda executor is not run");
        return;
    }
    const Problem p = small_synthetic(23);
    const size_type tight = smallest_budget(p);
    for (size_type budget : {size_type(1) << 30, 3 * tight}) {
        const Plan plan = inspect(p, test::one_process(budget));
        auto a = make_local_a<double>(p, plan.grid, 0);
        TileStore<double> c;
        ExecutorOptions eo;
        eo.backend = Backend::cuda;
        const auto r = execute<double>(p, plan, a, c, eo);
        CHECK(r.flops == plan.product.flops);
        CHECK(verify_dense<double>(p, plan.product.c_shape, c).relative_error <= 1e-12);
    }
}
