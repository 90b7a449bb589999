// Reduction plans: direct and hierarchical plans, simulated serially, deliver exactly the row
// sums to the owners; the hierarchical one sends fewer rows between nodes.
#include <catch2/catch.hpp>

#include <random>

#include "core/comm/exchange_plan.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "partition/balanced_partition.hpp"
#include "partition/permutation.hpp"
#include "partition/reduction_plan.hpp"
#include "partition/tomography.hpp"

using namespace tessel;
using namespace tessel::partition;
using tessel::comm::Topology;

namespace {

// Every rank's partial row g holds (g + 1) * (rank + 1) in column j scaled by (j + 1): the sum at
// the owner is (g + 1)(j + 1) Σ_{ranks holding g} (rank + 1).
void check_plans(const std::vector<comm::ExchangePlan>& plans,
                 const std::vector<std::vector<size_type>>& fp, const std::vector<size_type>& ro,
                 const Topology& topology) {
    const int p = topology.ranks();
    const size_type w = 3;
    std::vector<std::vector<double>> in(p);
    std::vector<double> expected(ro.back(), 0.0);
    for (int q = 0; q < p; ++q) {
        plans[q].validate(p, q);
        CHECK(plans[q].steps.size() == plans[0].steps.size());
        CHECK(plans[q].in_rows() == static_cast<size_type>(fp[q].size()));
        CHECK(plans[q].out_rows() == ro[q + 1] - ro[q]);
        for (size_type g : fp[q]) {
            for (size_type j = 0; j < w; ++j) in[q].push_back(double(g + 1) * (q + 1) * (j + 1));
            expected[g] += q + 1;
        }
    }
    const auto out = simulate_plans(plans, in, w);
    size_type wrong = 0;
    for (int q = 0; q < p; ++q)
        for (size_type g = ro[q]; g < ro[q + 1]; ++g)
            for (size_type j = 0; j < w; ++j)
                if (out[q][(g - ro[q]) * w + j] != double(g + 1) * (j + 1) * expected[g]) ++wrong;
    CHECK(wrong == 0);
}

size_type inter_node_bytes(const std::vector<comm::ExchangePlan>& plans, const Topology& topology) {
    size_type total = 0;
    for (int q = 0; q < topology.ranks(); ++q) {
        const auto bytes = comm::planned_bytes_per_level(plans[q], topology, q, 8);
        for (int l = 0; l < topology.num_levels(); ++l)
            if (topology.is_inter_node(l)) total += bytes[l];
    }
    return total;
}

}  // namespace

TEST_CASE("reduction plans deliver the sums of partial rows to their owners", "[plans]") {
    const auto a = generate::random_with_empty_rows<double, std::int32_t>(211, 173, 6, 0.2, 5);
    for (const char* spec : {"", "node=2", "node=2,socket=2", "rack=2,node=2,socket=2", "node=3,socket=2"}) {
        for (int p : {1, 2, 3, 4, 7, 8, 12}) {
            Topology topology = Topology::flat(p);
            try {
                topology = Topology::from_spec(spec, p);
            } catch (const InvalidInput&) {
                continue;  // spec needs more ranks
            }
            CAPTURE(spec, p);
            const auto ro = row_offsets_by_nnz(a, p);
            const auto co = col_offsets_by_nnz(a, p);
            const auto fp = footprints(a, co);
            check_plans(direct_reduction_plans(fp, ro, topology), fp, ro, topology);
            const auto hier = hierarchical_reduction_plans(fp, ro, topology);
            check_plans(hier, fp, ro, topology);
            CHECK(inter_node_bytes(hier, topology) <=
                  inter_node_bytes(direct_reduction_plans(fp, ro, topology), topology));
        }
    }
}

TEST_CASE("plans skip trivial levels and use one step per real level", "[plans]") {
    const auto a = generate::stencil_2d<double, std::int32_t>(12);
    const auto topology = Topology::from_spec("node=2,socket=2", 8);
    const auto fp = footprints(a, col_offsets_by_nnz(a, 8));
    const auto ro = row_offsets_by_nnz(a, 8);
    CHECK(direct_reduction_plans(fp, ro, topology)[0].steps.size() == 1);
    const auto hier = hierarchical_reduction_plans(fp, ro, topology);
    REQUIRE(hier[0].steps.size() == 3);
    CHECK(hier[0].steps[0].level == 0);
    CHECK(hier[0].steps[2].level == 2);
    // One rank per socket: the socket level is skipped.
    const auto thin = Topology::from_spec("node=2,socket=2", 4);
    const auto fp4 = footprints(a, col_offsets_by_nnz(a, 4));
    const auto hier4 = hierarchical_reduction_plans(fp4, row_offsets_by_nnz(a, 4), thin);
    CHECK(hier4[0].steps.size() == 2);
    // Bad inputs.
    CHECK_THROWS_AS(direct_reduction_plans(fp, ro, Topology::flat(4)), InvalidInput);
    CHECK_THROWS_AS(footprints(a, std::vector<size_type>{0, 5}), InvalidInput);
}

TEST_CASE("hierarchical reduction cuts inter-node volume on a Hilbert-ordered tomography matrix",
          "[plans]") {
    TomographyGeometry g{64, 64, 64};
    const auto raw = parallel_beam_matrix<double, std::int32_t>(g);
    const auto order = tomography_hilbert_order(g, 8);
    const auto a = permute(raw, order.rows, order.columns);
    const auto topology = Topology::from_spec("node=2,socket=2", 8);
    const auto fp = footprints(a, col_offsets_by_nnz(a, 8));
    const auto ro = row_offsets_by_nnz(a, 8);
    const double direct = double(inter_node_bytes(direct_reduction_plans(fp, ro, topology), topology));
    const double hier = double(inter_node_bytes(hierarchical_reduction_plans(fp, ro, topology), topology));
    CAPTURE(direct, hier);
    CHECK(hier < 0.6 * direct);
}

TEST_CASE("a data group inside one node reduces in socket and global steps only", "[plans]") {
    const auto a = generate::stencil_2d<double, std::int32_t>(10);
    // Four ranks: one node of two sockets (a batch group placed inside a node).
    const auto topology = Topology::from_spec("node=2,socket=2", 8).subset({0, 1, 2, 3});
    const auto fp = footprints(a, col_offsets_by_nnz(a, 4));
    const auto ro = row_offsets_by_nnz(a, 4);
    const auto hier = hierarchical_reduction_plans(fp, ro, topology);
    REQUIRE(hier[0].steps.size() == 2);
    CHECK(hier[0].steps[0].level == 0);
    CHECK(hier[0].steps[1].level == topology.num_levels() - 1);
    check_plans(hier, fp, ro, topology);
}
