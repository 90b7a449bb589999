// The inspector: mirrored-cyclic column assignment, worst-fit blocks and greedy cyclic chunks on
// hand-made cases (paper section 3.2), the symbolic product against brute force, plan
// invariants, and the budget error.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/inspector/block_partition.hpp"
#include "apps/ccsd_abcd/inspector/column_assignment.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "core/error.hpp"

using namespace tessel;
using namespace tessel::abcd;

TEST_CASE("columns go to processes by sorted flops in mirrored-cyclic order", "[abcd]") {
    // Sorted: c6(0) c1(1) c3(2) | c4(3) c2(4) c0(5) | c5(6) c7(7): forward, reverse, forward.
    const auto owner = assign_columns_mirrored_cyclic({5, 1, 4, 2, 3, 6, 0, 7}, 3);
    CHECK(owner == std::vector<int>{0, 1, 1, 2, 2, 0, 0, 1});
    // Ties keep column order; q = 1 gives everything to process 0.
    CHECK(assign_columns_mirrored_cyclic({1, 1, 1, 1}, 2) == std::vector<int>{0, 1, 1, 0});
    CHECK(assign_columns_mirrored_cyclic({3, 2, 1}, 1) == std::vector<int>{0, 0, 0});
    // The mirror evens out a linear ramp exactly: 2q columns of flops 1..2q give every process 2q+1.
    std::vector<double> ramp;
    for (int c = 1; c <= 8; ++c) ramp.push_back(c);
    const auto o = assign_columns_mirrored_cyclic(ramp, 4);
    std::vector<double> load(4, 0);
    for (int c = 0; c < 8; ++c) load[o[c]] += ramp[c];
    CHECK(load == std::vector<double>{9, 9, 9, 9});
    CHECK_THROWS_AS(assign_columns_mirrored_cyclic({1}, 0), InvalidInput);
}

TEST_CASE("refinement moves and swaps columns until the larger load stops falling", "[abcd]") {
    // Mirrored-cyclic: sorted c3 c4 | c5 c2 | c1 c0 -> p0 {c3, c2, c1} = 18, p1 {c4, c5, c0} = 12.
    const std::vector<double> flops{10, 9, 8, 1, 1, 1};
    auto owner = assign_columns_mirrored_cyclic(flops, 2);
    CHECK(process_loads(owner, flops, 2) == std::vector<double>{18, 12});
    refine_assignment(owner, flops, 2);
    // Moving c3 gives 17 / 13, the best split of these columns ({9, 8} against {10, 1, 1, 1}).
    const auto load = process_loads(owner, flops, 2);
    CHECK(std::max(load[0], load[1]) == 17);
    CHECK(load[0] + load[1] == 30);
    // A perfect assignment stays as it is; q = 1 is left alone.
    std::vector<double> ramp{1, 2, 3, 4, 5, 6, 7, 8};
    auto perfect = assign_columns_mirrored_cyclic(ramp, 4);
    const auto before = perfect;
    refine_assignment(perfect, ramp, 4);
    CHECK(process_loads(perfect, ramp, 4) == process_loads(before, ramp, 4));
    // Never worse than mirrored-cyclic, on random flops and several q.
    std::mt19937_64 rng(3);
    for (int q : {2, 3, 5}) {
        std::vector<double> f(40);
        for (auto& x : f) x = std::uniform_real_distribution<double>(0, 100)(rng);
        auto o = assign_columns_mirrored_cyclic(f, q);
        const auto l0 = process_loads(o, f, q);
        refine_assignment(o, f, q);
        const auto l1 = process_loads(o, f, q);
        CHECK(*std::max_element(l1.begin(), l1.end()) <= *std::max_element(l0.begin(), l0.end()));
    }
}

TEST_CASE("blocks: worst-fit over the devices, new blocks round-robin", "[abcd]") {
    const auto blocks = partition_into_blocks({0, 1, 2, 3, 4, 5}, {6, 5, 4, 3, 3, 2}, 10, 2);
    REQUIRE(blocks.size() == 3);
    CHECK(blocks[0].device == 0);
    CHECK(blocks[0].columns == std::vector<size_type>{0, 3});
    CHECK(blocks[1].device == 1);
    CHECK(blocks[1].columns == std::vector<size_type>{1, 2});  // 4 went to the emptier device
    CHECK(blocks[2].device == 0);
    CHECK(blocks[2].columns == std::vector<size_type>{4, 5});
    CHECK(blocks[2].bytes == 5);
    // One device: sorted by size, a new block whenever the next column does not fit.
    const auto one = partition_into_blocks({7, 8, 9}, {4, 9, 4}, 10, 1);
    REQUIRE(one.size() == 2);
    CHECK(one[0].columns == std::vector<size_type>{8});
    CHECK(one[1].columns == std::vector<size_type>{7, 9});
    CHECK_THROWS_WITH(partition_into_blocks({3}, {11}, 10, 1), Catch::Contains("column 3 needs 11 bytes"));
    CHECK_THROWS_AS(partition_into_blocks({3}, {11}, 10, 1), OutOfMemoryBudget);
}

TEST_CASE("chunks: one tile per row in cyclic order until the capacity", "[abcd]") {
    // Rows: r0 a(2) b(2) c(2); r1 d(3); r2 e(1) f(1); capacity 5.
    const std::vector<std::vector<ATileRef>> rows = {{{10, 2}, {11, 2}, {12, 2}}, {{20, 3}}, {{30, 1}, {31, 1}}};
    const auto chunks = partition_into_chunks(rows, 5);
    REQUIRE(chunks.size() == 3);
    CHECK(chunks[0].tiles == std::vector<size_type>{10, 20});
    CHECK(chunks[1].tiles == std::vector<size_type>{30, 11, 31});
    CHECK(chunks[2].tiles == std::vector<size_type>{12});
    CHECK(chunks[1].bytes == 4);
    CHECK(partition_into_chunks(rows, 100).size() == 1);
    CHECK_THROWS_AS(partition_into_chunks(rows, 2), OutOfMemoryBudget);
}

TEST_CASE("the symbolic product equals brute force on random shapes", "[abcd]") {
    SyntheticOptions o;
    o.m = 900;
    o.n = 2500;
    o.tile_min = 30;
    o.tile_max = 200;
    o.density_a = 0.3;
    o.density_b = 0.1;
    o.seed = 12;
    const Problem p = synthetic_problem(o);
    const SymbolicProduct sp = symbolic_product(p);
    std::map<std::pair<size_type, size_type>, std::pair<double, size_type>> brute;
    for (size_type i = 0; i < p.a_shape.rows(); ++i)
        for (size_type e = p.a_shape.row_ptr()[i]; e < p.a_shape.row_ptr()[i + 1]; ++e) {
            const size_type k = p.a_shape.col_idx()[e];
            for (size_type f = p.b_shape.row_ptr()[k]; f < p.b_shape.row_ptr()[k + 1]; ++f) {
                const size_type c = p.b_shape.col_idx()[f];
                auto& [flops, gemms] = brute[{i, c}];
                flops += 2.0 * p.m_tiling.size(i) * p.k_tiling.size(k) * p.n_tiling.size(c);
                ++gemms;
            }
        }
    REQUIRE(sp.c_shape.nnz() == static_cast<size_type>(brute.size()));
    double total = 0;
    for (const auto& [ic, fg] : brute) {
        const size_type pos = sp.c_shape.find(ic.first, ic.second);
        REQUIRE(pos >= 0);
        CHECK(sp.tile_flops[pos] == fg.first);
        CHECK(sp.tile_gemms[pos] == fg.second);
        total += fg.first;
    }
    CHECK(sp.flops == total);
    // Per grid row, the column flops add up to the total.
    double rows = 0;
    for (int r = 0; r < 3; ++r)
        for (double f : column_flops(sp, r, 3)) rows += f;
    CHECK(rows == total);
}

TEST_CASE("plans cover every column and A tile once and respect the budget", "[abcd]") {
    SyntheticOptions o;
    o.m = 800;
    o.n = 2400;
    o.tile_min = 40;
    o.tile_max = 160;
    o.density_a = 0.5;
    o.density_b = 0.15;
    o.seed = 2;
    const Problem p = synthetic_problem(o);
    InspectorOptions io;
    io.grid = ProcessGrid::parse("2x3", 6);
    io.device_memory = 3 << 20;
    io.devices = 2;
    const Plan plan = inspect(p, io);
    double flops = 0;
    for (int row = 0; row < 2; ++row) {
        std::set<size_type> seen;
        for (const auto& pp : plan.processes) {
            if (pp.grid_row != row) continue;
            for (const auto& b : pp.blocks) {
                CHECK(b.b_bytes + b.c_bytes <= plan.block_capacity());
                CHECK(b.columns.size() >= 1);
                std::set<size_type> in_chunks;
                for (const auto& ch : b.chunks) {
                    CHECK(ch.bytes <= plan.chunk_capacity());
                    for (auto t : ch.a_tiles) CHECK(in_chunks.insert(t).second);  // once per block
                }
                for (auto c : b.columns) CHECK(seen.insert(c).second);  // once per grid row
                for (auto c : b.columns) CHECK(plan.column_owner[row][c] == pp.grid_col);
            }
            flops += pp.flops;
        }
    }
    CHECK(flops == plan.product.flops);
    CHECK(plan.load_balance() >= 1.0);
    // Bytes between ranks balance: what is sent is received.
    CHECK(plan.total(&ProcessPlan::a_send_bytes) == plan.total(&ProcessPlan::a_recv_bytes));
    CHECK(plan.total(&ProcessPlan::c_send_bytes) == plan.total(&ProcessPlan::c_recv_bytes));
}

TEST_CASE("a budget below the largest column names the column and the budget needed", "[abcd]") {
    // Column 1 of B: B tiles (0,1) 4x8 and (1,1) 6x8, C tile (0,1) 5x8: (32 + 48 + 40) x 8 = 960 bytes.
    const Problem p = test::hand_problem({5}, {4, 6}, {3, 8}, {{0, 0}, {0, 1}}, {{0, 0}, {0, 1}, {1, 1}});
    CHECK_THROWS_AS(inspect(p, test::one_process(1000)), OutOfMemoryBudget);
    CHECK_THROWS_WITH(inspect(p, test::one_process(1000)),
                      Catch::Contains("column 1 of B needs 960 B of B and C tiles") &&
                          Catch::Contains("--device-memory must be at least 1920 bytes") &&
                          Catch::Contains("it is 1000"));
    CHECK_NOTHROW(inspect(p, test::one_process(1920)));
    CHECK_THROWS_WITH(inspect(p, test::one_process(0)), Catch::Contains("--device-memory"));
}

TEST_CASE("process grids parse and check the rank count", "[abcd]") {
    CHECK(ProcessGrid::parse("", 4).q == 4);
    const ProcessGrid g = ProcessGrid::parse("2x3", 6);
    CHECK(g.p == 2);
    CHECK(g.q == 3);
    CHECK(g.a_owner(5, 7) == g.rank_of(1, 1));
    CHECK(g.c_owner(4, 2) == g.rank_of(0, 2));
    CHECK(ProcessGrid::parse("1x2", 4).size() == 2);
    CHECK_THROWS_WITH(ProcessGrid::parse("2x3", 4), Catch::Contains("--grid: 2x3 needs 6 processes, the run has 4"));
    CHECK_THROWS_WITH(ProcessGrid::parse("2by3", 8), Catch::Contains("is not PxQ"));
    CHECK_THROWS_WITH(ProcessGrid::parse("0x3", 8), Catch::Contains("at least 1"));
}
