// core/comm under MPI: detected topology, MPI errors as exceptions, exchange plans run with
// point-to-point and neighbourhood collectives against the serial simulation, and byte counters
// (counted at the send calls) equal to what the receivers got and to what the plans predict.
#include <catch2/catch.hpp>

#include "core/comm/comm_counters.hpp"
#include "core/comm/cuda_aware.hpp"
#include "core/comm/exchange_executor.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/comm/topology.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "mpi_test_util.hpp"
#include "partition/balanced_partition.hpp"
#include "partition/permutation.hpp"
#include "partition/process_grid.hpp"
#include "partition/reduction_plan.hpp"
#include "partition/tomography.hpp"

using namespace tessel;
using namespace tessel::test;
using comm::Topology;

TEST_CASE("detected topology: socket, node, global over all ranks", "[mpi][topology]") {
    const auto t = Topology::detect(MPI_COMM_WORLD);
    CHECK(t.ranks() == world_size());
    REQUIRE(t.num_levels() == 3);
    CHECK(t.level_name(0) == "socket");
    CHECK(t.level_name(1) == "node");
    CHECK(t.level_name(2) == "global");
    CHECK(t.num_groups(1) >= 1);
    CHECK(t.num_groups(0) >= t.num_groups(1));
    // Every rank sees the same tables.
    std::vector<int> mine;
    for (int l = 0; l < t.num_levels(); ++l)
        for (int r = 0; r < t.ranks(); ++r) mine.push_back(t.group(l, r));
    std::vector<int> root = mine;
    MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(all_ranks(root == mine));
    CHECK(comm::make_topology("node=1", MPI_COMM_WORLD).num_levels() == 2);
    CHECK(comm::make_topology("auto", MPI_COMM_WORLD).num_levels() == 3);
    // This MPI is not CUDA-aware: staging through the host is what runs.
    CHECK(comm::choose_device_staging(false) == comm::DeviceStaging::host);
    if (!comm::cuda_aware_mpi()) CHECK(comm::choose_device_staging(true) == comm::DeviceStaging::host);
}

TEST_CASE("failed MPI calls throw MpiError with the call and MPI's message", "[mpi]") {
    int value = 0;
    try {
        TESSEL_MPI_CHECK(MPI_Send(&value, 1, MPI_INT, world_size() + 5, 0, MPI_COMM_WORLD));
        FAIL("no exception");
    } catch (const MpiError& e) {
        CHECK_THAT(e.what(), Catch::Contains("MPI_Send"));
        CHECK_THAT(e.what(), Catch::Contains("test_comm.cpp:"));
        CHECK_THAT(e.message(), Catch::Contains("failed: "));
    }
}

namespace {

// Runs the plans of every rank on this rank's input, compares with the serial simulation and
// checks the counters. Returns true on every rank when all is well.
void check_exchange(const std::vector<comm::ExchangePlan>& plans, const Topology& topology,
                    comm::ExchangeMethod method, size_type width, const std::string& what) {
    const int me = world_rank(), p = world_size();
    std::vector<std::vector<double>> inputs(p);
    for (int q = 0; q < p; ++q)
        for (size_type e = 0; e < plans[q].in_rows() * width; ++e)
            inputs[q].push_back(double((q + 1) * 1000 + e % 997) * 0.5);
    const auto expected = partition::simulate_plans(plans, inputs, width);

    comm::ExchangeExecutor<double> executor(MPI_COMM_WORLD, plans[me], topology, method);
    DenseMatrix<double> in(plans[me].in_rows(), width), out(plans[me].out_rows(), width, Layout::row_major, -7);
    std::copy(inputs[me].begin(), inputs[me].end(), in.data());
    executor.run(in.view(), out.view());
    const bool same = std::equal(expected[me].begin(), expected[me].end(), out.data());

    const auto total = executor.counters().summed(MPI_COMM_WORLD);
    auto planned = comm::planned_bytes_per_level(plans[me], topology, me, width * 8);
    MPI_Allreduce(MPI_IN_PLACE, planned.data(), static_cast<int>(planned.size()), MPI_INT64_T,
                  MPI_SUM, MPI_COMM_WORLD);
    bool bytes_ok = true;
    for (int l = 0; l < topology.num_levels(); ++l) {
        bytes_ok = bytes_ok && total.sent_bytes(l) == planned[l] &&
                   total.received_bytes(l) == total.sent_bytes(l) &&
                   total.received_messages(l) == total.sent_messages(l);
    }
    INFO(what << " method " << comm::to_string(method));
    CHECK(all_ranks(same));
    CHECK(all_ranks(bytes_ok));
}

}  // namespace

TEST_CASE("exchange plans run on MPI equal the serial simulation; bytes match per level",
          "[mpi][exchange]") {
    const int p = world_size();
    const auto a = generate::random_with_empty_rows<double, std::int32_t>(157, 131, 5, 0.25, 3);
    const auto ro = partition::row_offsets_by_nnz(a, p);
    const auto fp = partition::footprints(a, partition::col_offsets_by_nnz(a, p));
    for (const auto& [spec, topology] : topologies({"node=2", "node=2,socket=2", "rack=2,node=2,socket=2"})) {
        for (auto method : {comm::ExchangeMethod::point_to_point, comm::ExchangeMethod::neighbor_collective}) {
            check_exchange(partition::direct_reduction_plans(fp, ro, topology), topology, method, 3,
                           "direct " + spec);
            check_exchange(partition::hierarchical_reduction_plans(fp, ro, topology), topology,
                           method, 5, "hierarchical " + spec);
        }
    }
}

TEST_CASE("several exchanges in flight at once finish in any order", "[mpi][exchange]") {
    const int me = world_rank(), p = world_size();
    const auto a = generate::stencil_2d<double, std::int32_t>(9);
    const auto topology = Topology::flat(p);
    const auto plans = partition::direct_reduction_plans(
        partition::footprints(a, partition::col_offsets_by_nnz(a, p)),
        partition::row_offsets_by_nnz(a, p), topology);
    comm::ExchangeExecutor<double> executor(MPI_COMM_WORLD, plans[me], topology);
    const size_type w = 2;
    DenseMatrix<double> in1(plans[me].in_rows(), w, Layout::row_major, 1.0);
    DenseMatrix<double> in2(plans[me].in_rows(), w, Layout::row_major, 2.0);
    DenseMatrix<double> out1(plans[me].out_rows(), w), out2(plans[me].out_rows(), w);
    comm::ExchangeExecutor<double>::Pending first, second;
    executor.start(0, in1.view(), out1.view(), first);
    executor.start(0, in2.view(), out2.view(), second);
    CHECK_THROWS_AS(executor.start(0, in1.view(), out1.view(), first), DimensionMismatch);
    while (!executor.test(second)) {
    }
    executor.finish(second);
    executor.finish(first);
    bool ok = true;
    for (size_type e = 0; e < out1.size(); ++e) ok = ok && out2.data()[e] == 2.0 * out1.data()[e];
    // Each output row sums one 1.0 per rank holding it: the number of ranks whose columns it uses.
    const auto fp = partition::footprints(a, partition::col_offsets_by_nnz(a, p));
    const auto ro = partition::row_offsets_by_nnz(a, p);
    for (size_type g = ro[me]; g < ro[me + 1]; ++g) {
        int holders = 0;
        for (const auto& f : fp) holders += std::binary_search(f.begin(), f.end(), g);
        ok = ok && out1(g - ro[me], 0) == holders;
    }
    CHECK(all_ranks(ok));
    DenseMatrix<double> wrong(plans[me].in_rows() + 1, w);
    CHECK_THROWS_AS(executor.run_step(0, wrong.view(), out1.view()), DimensionMismatch);
}

TEST_CASE("hierarchical reduction sends fewer bytes between nodes than direct", "[mpi][exchange]") {
    const int me = world_rank(), p = world_size();
    if (p < 4) return;  // needs two nodes of at least two ranks
    partition::TomographyGeometry g{32, 32, 32};
    const auto order = partition::tomography_hilbert_order(g, 4);
    const auto a = partition::permute(partition::parallel_beam_matrix<double, std::int32_t>(g),
                                      order.rows, order.columns);
    const auto topology = Topology::from_spec("node=2", p);
    const auto ro = partition::row_offsets_by_nnz(a, p);
    const auto fp = partition::footprints(a, partition::col_offsets_by_nnz(a, p));
    size_type inter[2];
    int which = 0;
    for (const auto& plans : {partition::direct_reduction_plans(fp, ro, topology),
                              partition::hierarchical_reduction_plans(fp, ro, topology)}) {
        comm::ExchangeExecutor<double> executor(MPI_COMM_WORLD, plans[me], topology);
        DenseMatrix<double> in(plans[me].in_rows(), 4, Layout::row_major, 1.0), out(plans[me].out_rows(), 4);
        executor.run(in.view(), out.view());
        inter[which++] = executor.counters().summed(MPI_COMM_WORLD).inter_node_bytes();
    }
    CAPTURE(inter[0], inter[1]);
    CHECK(inter[1] < inter[0]);
}

TEST_CASE("process grid communicators: data groups by data index, batch groups by batch index",
          "[mpi][grid]") {
    const int me = world_rank(), p = world_size();
    for (int p_batch : {1, 2}) {
        if (p % p_batch) continue;
        const auto topology = p >= 4 ? Topology::from_spec("node=2", p) : Topology::flat(p);
        const auto grid = partition::make_process_grid(p / p_batch, p_batch, topology);
        auto [data, batch] = partition::split_process_grid(MPI_COMM_WORLD, grid);
        const bool ok = comm::size_of(data) == p / p_batch && comm::size_of(batch) == p_batch &&
                        comm::rank_of(data) == grid.data_index[me] &&
                        comm::rank_of(batch) == grid.batch_index[me] &&
                        partition::data_groups_within(grid, topology, topology.num_levels() - 1);
        CHECK(all_ranks(ok));
        if (p >= 4 && p_batch == 2)  // two nodes, two batch groups: each data group inside a node
            CHECK(partition::data_groups_within(grid, topology, topology.level_index("node")));
    }
}
