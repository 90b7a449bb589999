// Balanced partitions, topology specs, batch x data process grids and the cost model.
#include <catch2/catch.hpp>

#include <numeric>

#include "core/comm/topology.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "partition/balanced_partition.hpp"
#include "partition/cost_model.hpp"
#include "partition/process_grid.hpp"
#include "partition/tomography.hpp"

using namespace tessel;
using namespace tessel::partition;
using tessel::comm::Topology;

TEST_CASE("balanced offsets split by weight, contiguously", "[partition]") {
    const std::vector<size_type> w = {5, 1, 1, 1, 1, 1, 5, 0, 0, 5};
    const auto o = balanced_offsets(w, 3);
    REQUIRE(o.size() == 4);
    CHECK(o.front() == 0);
    CHECK(o.back() == 10);
    CHECK(std::is_sorted(o.begin(), o.end()));
    CHECK(imbalance(w, o) <= 1.0 + 5.0 * 3 / 20.0);
    // More parts than items: some parts are empty, all items are covered.
    const auto many = balanced_offsets({1, 1}, 5);
    CHECK(many.front() == 0);
    CHECK(many.back() == 2);
    CHECK(std::is_sorted(many.begin(), many.end()));
    CHECK(balanced_offsets({}, 3) == std::vector<size_type>{0, 0, 0, 0});
    CHECK_THROWS_AS(balanced_offsets(w, 0), InvalidInput);
    CHECK(even_offsets(10, 4) == std::vector<size_type>{0, 2, 5, 7, 10});

    const auto a = generate::power_law<double, std::int32_t>(500, 400, 6.0, 2.0, 3);
    const auto ro = row_offsets_by_nnz(a, 4);
    std::vector<size_type> row_w(a.rows());
    for (size_type i = 0; i < a.rows(); ++i) row_w[i] = a.row_nnz(i) + 1;
    CHECK(imbalance(row_w, ro) < 1.3);
    const auto co = col_offsets_by_nnz(a, 4);
    CHECK(co.back() == a.cols());
}

TEST_CASE("topology specs: nested contiguous groups, any depth, clear errors", "[topology]") {
    const auto t = Topology::from_spec("node=2,socket=2", 8);
    REQUIRE(t.num_levels() == 3);
    CHECK(t.level_name(0) == "socket");
    CHECK(t.level_name(1) == "node");
    CHECK(t.level_name(2) == "global");
    CHECK(t.num_groups(0) == 4);
    CHECK(t.num_groups(1) == 2);
    CHECK(t.level_of(0, 1) == 0);
    CHECK(t.level_of(0, 2) == 1);
    CHECK(t.level_of(0, 4) == 2);
    CHECK(t.level_of(3, 3) == -1);
    CHECK(t.members(0, 5) == std::vector<int>{4, 5});
    CHECK(t.index_in_group(1, 6) == 2);
    CHECK(t.is_inter_node(2));
    CHECK_FALSE(t.is_inter_node(1));
    CHECK(t.describe() == "8 ranks: global 1 > node 2 > socket 4");

    const auto deep = Topology::from_spec("rack=2,node=2,socket=2", 16);
    CHECK(deep.num_levels() == 4);
    CHECK(deep.level_of(0, 8) == 3);
    CHECK(deep.level_of(0, 4) == 2);
    CHECK(deep.is_inter_node(2));

    const auto uneven = Topology::from_spec("node=2,socket=2", 6);  // sockets {0} {1,2} {3} {4,5}
    CHECK(uneven.members(0, 0) == std::vector<int>{0});
    CHECK(uneven.members(0, 2) == std::vector<int>{1, 2});
    CHECK(uneven.members(1, 4) == std::vector<int>{3, 4, 5});

    const auto sub = t.subset({1, 3, 4, 6});
    CHECK(sub.ranks() == 4);
    CHECK(sub.level_of(0, 1) == 1);
    CHECK(sub.level_of(2, 3) == 1);
    CHECK(sub.level_of(1, 2) == 2);

    CHECK(Topology::from_spec("", 3).num_levels() == 1);
    CHECK_THROWS_WITH(Topology::from_spec("node=2,socket=2", 2), Catch::Contains("cannot hold"));
    CHECK_THROWS_AS(Topology::from_spec("node=x", 4), InvalidInput);
    CHECK_THROWS_AS(Topology::from_spec("node", 4), InvalidInput);
    CHECK_THROWS_AS(Topology::from_spec("node=0", 4), InvalidInput);
    CHECK_THROWS_AS(Topology::from_spec("node=2,node=2", 4), InvalidInput);
    CHECK_THROWS_AS(Topology::from_spec("global=2", 4), InvalidInput);
    // Explicit tables must nest.
    CHECK_THROWS_AS(Topology({"socket", "node", "global"}, {{0, 0, 1, 1}, {0, 1, 0, 1}, {0, 0, 0, 0}}),
                    InvalidInput);
}

TEST_CASE("process grids keep data groups inside nodes", "[grid]") {
    CHECK(near_square_grid(1) == std::pair{1, 1});
    CHECK(near_square_grid(2) == std::pair{2, 1});
    CHECK(near_square_grid(8) == std::pair{4, 2});
    CHECK(near_square_grid(9) == std::pair{3, 3});
    CHECK(near_square_grid(7) == std::pair{7, 1});

    // Ranks dealt round-robin over two nodes: rank r lives on node r % 2.
    const Topology interleaved({"node", "global"}, {{0, 1, 0, 1, 0, 1, 0, 1}, std::vector<int>(8, 0)});
    const auto grid = make_process_grid(4, 2, interleaved);
    const int node = interleaved.level_index("node");
    CHECK(data_groups_within(grid, interleaved, node));
    for (int b = 0; b < 2; ++b) {
        const auto group = grid.data_group(b);
        CHECK(group.size() == 4);
        for (int d = 0; d < 4; ++d) CHECK(grid.data_index[group[d]] == d);
    }
    // A data group larger than a node cannot stay inside it.
    CHECK_FALSE(data_groups_within(make_process_grid(8, 1, interleaved), interleaved, node));
    CHECK_THROWS_AS(make_process_grid(3, 2, interleaved), InvalidInput);
}

TEST_CASE("cost model: predictions are positive and the choice is their minimum", "[cost]") {
    const auto a = parallel_beam_matrix<double, std::int32_t>({32, 32, 32});
    const auto topology = Topology::from_spec("node=2,socket=2", 8);
    MachineModel model;
    model.levels = {{1e-6, 1e-10}, {2e-6, 4e-10}, {5e-6, 4e-9}};
    model.spmm_rate = 2e9;
    double best = -1;
    dist::DistAlgorithm fastest{};
    for (auto algorithm : dist::all_dist_algorithms()) {
        const auto p = predict_dist_spmm(algorithm, a, 64, topology, model);
        CAPTURE(dist::to_string(algorithm));
        CHECK(p.compute > 0);
        CHECK(p.comm > 0);
        CHECK(p.total >= std::max(p.compute, p.comm) * 0.999);
        if (best < 0 || p.total < best) best = p.total, fastest = algorithm;
    }
    CHECK(choose_dist_algorithm(a, 64, topology, model) == fastest);
    // With a slow global level, the hierarchical reduction is predicted cheaper than the direct.
    const auto direct = predict_dist_spmm(dist::DistAlgorithm::sm_direct, a, 64, topology, model);
    const auto hier = predict_dist_spmm(dist::DistAlgorithm::sm_hierarchical, a, 64, topology, model);
    CHECK(hier.comm < direct.comm);
    // Pipelining never predicts a slower run than the same minibatches one after another.
    DistSetupOptions batched, piped;
    batched.run.minibatch = piped.run.minibatch = 16;
    piped.run.pipelined = true;
    const auto serial = predict_dist_spmm(dist::DistAlgorithm::sm_hierarchical, a, 64, topology, model, batched);
    const auto overlapped = predict_dist_spmm(dist::DistAlgorithm::sm_hierarchical, a, 64, topology, model, piped);
    CHECK(overlapped.total <= serial.total);
}
