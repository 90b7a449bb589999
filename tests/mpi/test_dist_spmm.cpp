// Every distributed SpMM variant equals reference::spmm on the gathered result, for several
// matrices (uneven sizes, empty rows, fewer rows than ranks), topologies, k, batch grids,
// minibatches, pipelining and both exchange methods; byte counters of sender-multiplies agree
// between senders and receivers.
#include <catch2/catch.hpp>

#include "core/comm/cuda_aware.hpp"
#include "core/dist/sender_multiplies_spmm.hpp"
#include "core/error.hpp"
#include "core/kernels/spmm.hpp"
#include "mpi_test_util.hpp"
#include "partition/dist_setup.hpp"
#include "partition/permutation.hpp"
#include "partition/tomography.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/runtime/stream.hpp"
#include "core/device_traffic.hpp"
#include "core/dist/device_sender_multiplies_spmm.hpp"
#endif

using namespace tessel;
using namespace tessel::test;
using dist::DistAlgorithm;

namespace {

struct Case {
    std::string name;
    Csr<double, std::int32_t> a;
};

std::vector<Case> matrices() {
    partition::TomographyGeometry g{12, 10, 14};
    const auto order = partition::tomography_hilbert_order(g, 4);
    return {
        {"random 67x53 with empty rows",
         generate::random_with_empty_rows<double, std::int32_t>(67, 53, 4, 0.3, 2)},
        {"power law 90x120", generate::power_law<double, std::int32_t>(90, 120, 5.0, 2.0, 4)},
        {"tomography 140x144 Hilbert",
         partition::permute(partition::parallel_beam_matrix<double, std::int32_t>(g), order.rows,
                            order.columns)},
        {"tiny 3x2", Csr<double, std::int32_t>(3, 2, {0, 1, 1, 3}, {1, 0, 1}, {2.0, -1.0, 0.5})},
    };
}

constexpr double tolerance = 1e-12;

}  // namespace

TEST_CASE("every distributed variant equals the serial reference", "[mpi][dist]") {
    const auto cases = matrices();
    for (const auto& [spec, topology] : topologies({"node=2", "node=2,socket=2"})) {
        for (const auto& c : cases) {
            for (auto algorithm : dist::all_dist_algorithms()) {
                for (size_type k : {size_type(5), size_type(16)}) {
                    auto op = partition::make_dist_spmm(algorithm, MPI_COMM_WORLD, topology, c.a, k);
                    INFO(c.name << ", " << dist::to_string(algorithm) << ", topology " << spec
                                << ", k = " << k << ", " << world_size() << " ranks");
                    CHECK(distributed_error(*op, c.a, k) < tolerance);
                    // A second multiply on the same object gives the same result again.
                    CHECK(distributed_error(*op, c.a, k, 12) < tolerance);
                }
            }
        }
    }
}

TEST_CASE("sender-multiplies: batches, minibatches, pipelining, both exchange methods",
          "[mpi][dist]") {
    const int p = world_size();
    const auto cases = matrices();
    for (const auto& [spec, topology] : topologies({"node=2,socket=2"})) {
        for (int p_batch : {1, 2}) {
            if (p % p_batch) continue;
            for (auto algorithm : {DistAlgorithm::sm_direct, DistAlgorithm::sm_hierarchical}) {
                for (bool pipelined : {false, true}) {
                    for (auto method : {comm::ExchangeMethod::point_to_point,
                                        comm::ExchangeMethod::neighbor_collective}) {
                        partition::DistSetupOptions options;
                        options.p_batch = p_batch;
                        options.run.minibatch = 4;
                        options.run.pipelined = pipelined;
                        options.run.method = method;
                        const auto& c = cases[2];
                        const size_type k = 19;  // not a multiple of the minibatch
                        auto op = partition::make_dist_spmm(algorithm, MPI_COMM_WORLD, topology, c.a, k, options);
                        INFO(dist::to_string(algorithm) << " " << spec << " batch " << p_batch
                                                        << (pipelined ? " pipelined " : " ")
                                                        << comm::to_string(method));
                        CHECK(distributed_error(*op, c.a, k) < tolerance);
                        const auto* sm = dynamic_cast<const dist::SenderMultipliesSpmm<double, std::int32_t>*>(op.get());
                        REQUIRE(sm != nullptr);
                        CHECK(sm->minibatch() == 4);
                        CHECK(op->algorithm() == (sm->plan().steps.size() > 1 ? DistAlgorithm::sm_hierarchical
                                                                                : DistAlgorithm::sm_direct));
                        // Sent and received bytes agree level by level (point-to-point counts
                        // receipts from the MPI statuses).
                        const auto total = op->counters().summed(MPI_COMM_WORLD);
                        bool same = true;
                        for (int l = 0; l < total.num_levels(); ++l)
                            same = same && total.sent_bytes(l) == total.received_bytes(l);
                        CHECK(same);
                        // The phase was timed (a missing phase reads 0) and is a real duration.
                        CHECK(op->times().all().count("compute") == 1);
                        CHECK(op->times().get("compute") > 0.0);
                    }
                }
            }
        }
    }
}

TEST_CASE("float values and 64-bit indices", "[mpi][dist]") {
    const auto a = generate::random_with_empty_rows<float, std::int64_t>(45, 38, 3, 0.2, 9);
    const auto topology = comm::Topology::flat(world_size());
    for (auto algorithm : dist::all_dist_algorithms()) {
        auto op = partition::make_dist_spmm(algorithm, MPI_COMM_WORLD, topology, a, 8);
        INFO(dist::to_string(algorithm));
        CHECK(distributed_error(*op, a, 8) < 1e-5);
    }
}

TEST_CASE("distributed set-up rejects what cannot work", "[mpi][dist]") {
    const auto a = generate::stencil_2d<double, std::int32_t>(4);
    const auto topology = comm::Topology::flat(world_size());
    CHECK_THROWS_AS(partition::make_dist_spmm(DistAlgorithm::automatic, MPI_COMM_WORLD, topology, a, 4),
                    InvalidInput);
    CHECK_THROWS_AS(partition::make_dist_spmm(DistAlgorithm::a15d, MPI_COMM_WORLD,
                                              comm::Topology::flat(world_size() + 1), a, 4),
                    InvalidInput);
    auto op = partition::make_dist_spmm(DistAlgorithm::a2d, MPI_COMM_WORLD, topology, a, 4);
    dist::DenseBlocks<double> wrong, c;
    CHECK_THROWS_AS(op->multiply(wrong, c), DimensionMismatch);
    CHECK(dist::parse_dist_algorithm("sm-hier") == DistAlgorithm::sm_hierarchical);
    CHECK_THROWS_AS(dist::parse_dist_algorithm("3d"), InvalidInput);
}

#if defined(TESSEL_HAVE_CUDA)

TEST_CASE("device sender-multiplies equals the serial reference and counts the host's bytes",
          "[mpi][dist][cuda]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto cases = matrices();
    for (const auto& [spec, topology] : topologies({"node=2,socket=2"})) {
        for (const auto& c : cases) {
            for (auto algorithm : {DistAlgorithm::sm_direct, DistAlgorithm::sm_hierarchical}) {
                for (bool pipelined : {false, true}) {
                    for (auto method : {comm::ExchangeMethod::point_to_point,
                                        comm::ExchangeMethod::neighbor_collective}) {
                        for (bool cuda_aware : {false, true}) {
                            partition::DistSetupOptions options;
                            options.run.minibatch = 4;
                            options.run.pipelined = pipelined;
                            options.run.method = method;
                            options.run.cuda_aware = cuda_aware;
                            const size_type k = 19;
                            auto host = partition::make_dist_spmm(algorithm, MPI_COMM_WORLD, topology, c.a, k, options);
                            options.run.backend = Backend::cuda;
                            auto op = partition::make_dist_spmm(algorithm, MPI_COMM_WORLD, topology, c.a, k, options);
                            INFO(c.name << ", " << dist::to_string(algorithm) << " " << spec
                                        << (pipelined ? " pipelined " : " ") << comm::to_string(method)
                                        << (cuda_aware ? " cuda-aware asked" : ""));
                            const auto* device =
                                dynamic_cast<const dist::DeviceSenderMultipliesSpmm<double, std::int32_t>*>(op.get());
                            REQUIRE(device != nullptr);
                            CHECK(device->staging() == comm::choose_device_staging(cuda_aware));
                            CHECK(distributed_error(*op, c.a, k) < tolerance);
                            CHECK(distributed_error(*op, c.a, k, 12) < tolerance);
                            // The same messages as the host operator, level by level.
                            CHECK(distributed_error(*host, c.a, k) < tolerance);
                            CHECK(distributed_error(*host, c.a, k, 12) < tolerance);
                            for (int l = 0; l < op->counters().num_levels(); ++l) {
                                CHECK(op->counters().sent_bytes(l) == host->counters().sent_bytes(l));
                                CHECK(op->counters().received_bytes(l) == host->counters().received_bytes(l));
                            }
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("every distributed variant on the cuda backend equals the serial reference",
          "[mpi][dist][cuda]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto cases = matrices();
    partition::DistSetupOptions options;
    options.run.backend = Backend::cuda;
    for (const auto& [spec, topology] : topologies({"node=2"})) {
        for (const auto& c : cases) {
            for (auto algorithm : dist::all_dist_algorithms()) {
                auto op = partition::make_dist_spmm(algorithm, MPI_COMM_WORLD, topology, c.a, 16, options);
                INFO(c.name << ", " << dist::to_string(algorithm) << ", topology " << spec);
                CHECK(distributed_error(*op, c.a, 16) < tolerance);
                CHECK(distributed_error(*op, c.a, 16, 12) < tolerance);
            }
        }
    }
}

TEST_CASE("device sender-multiplies on device views with padded leading dimensions",
          "[mpi][dist][cuda]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto a = generate::power_law<float, std::int64_t>(300, 260, 6.0, 2.0, 8);
    const auto topology = world_size() % 2 ? comm::Topology::flat(world_size())
                                           : comm::Topology::from_spec("node=2", world_size());
    partition::DistSetupOptions options;
    options.run.backend = Backend::cuda;
    options.run.minibatch = 8;
    options.run.pipelined = true;
    auto op = partition::make_dist_spmm(DistAlgorithm::sm_hierarchical, MPI_COMM_WORLD, topology, a, 21, options);
    auto* device = dynamic_cast<dist::DeviceSenderMultipliesSpmm<float, std::int64_t>*>(op.get());
    REQUIRE(device != nullptr);
    const auto b = generate::random_dense<float>(a.cols(), 21, Layout::row_major, 4);
    const auto br = op->b_ranges()[0], cr = op->c_ranges()[0];
    // B and C with leading dimensions larger than their widths.
    const size_type ldb = br.cols() + 3, ldc = cr.cols() + 5;
    std::vector<float> b_host(static_cast<std::size_t>(std::max<size_type>(1, br.rows() * ldb)), 0.0f);
    for (size_type i = 0; i < br.rows(); ++i)
        for (size_type j = 0; j < br.cols(); ++j) b_host[i * ldb + j] = b(br.row_begin + i, br.col_begin + j);
    cuda::DeviceDense<float> db(br.rows(), br.cols(), ldb), dc(cr.rows(), cr.cols(), ldc);
    db.upload(DenseView<const float>(b_host.data(), br.rows(), br.cols(), Layout::row_major, ldb));
    device->multiply_device(db.view(), dc.view());
    DenseMatrix<float> c(cr.rows(), cr.cols());
    dc.download(c.view());
    DenseMatrix<float> expected(a.rows(), 21);
    reference::spmm<float, std::int64_t>(a, b.view(), expected.view());
    double worst = 0;
    for (size_type i = 0; i < cr.rows(); ++i)
        for (size_type j = 0; j < cr.cols(); ++j)
            worst = std::max(worst, std::abs(double(c(i, j)) - double(expected(cr.row_begin + i, cr.col_begin + j))) /
                                        (1.0 + std::abs(double(expected(cr.row_begin + i, cr.col_begin + j)))));
    CHECK(all_ranks(worst < 1e-4));
    // Shapes other than this rank's blocks are refused.
    CHECK_THROWS_AS(device->multiply_device(DenseView<const float>(db.data(), br.rows(), br.cols() - 1,
                                                                   Layout::row_major, ldb),
                                            dc.view()),
                    DimensionMismatch);
}

TEST_CASE("device sender-multiplies ordered on the caller's stream: B's producer and C's consumer there, "
          "the host waiting only for the exchange",
          "[mpi][dist][cuda]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto a = generate::power_law<double, std::int32_t>(260, 300, 6.0, 2.0, 9);
    const auto topology = world_size() % 2 ? comm::Topology::flat(world_size())
                                           : comm::Topology::from_spec("node=2", world_size());
    const size_type k = 11;
    const auto b = generate::random_dense<double>(a.cols(), k, Layout::row_major, 5);
    DenseMatrix<double> expected(a.rows(), k);
    reference::spmm<double, std::int32_t>(a, b.view(), expected.view());
    for (size_type minibatch : {size_type(0), size_type(4)}) {
        partition::DistSetupOptions options;
        options.run.backend = Backend::cuda;
        options.run.minibatch = minibatch;
        options.run.pipelined = true;
        auto op = partition::make_dist_spmm(DistAlgorithm::sm_hierarchical, MPI_COMM_WORLD, topology, a, k, options);
        auto* device = dynamic_cast<dist::DeviceSenderMultipliesSpmm<double, std::int32_t>*>(op.get());
        REQUIRE(device != nullptr);
        const auto br = op->b_ranges()[0], cr = op->c_ranges()[0];
        DenseMatrix<double> b_block(br.rows(), br.cols());
        for (size_type i = 0; i < br.rows(); ++i)
            for (size_type j = 0; j < br.cols(); ++j) b_block(i, j) = b(br.row_begin + i, br.col_begin + j);
        // The caller's own stream: B uploaded and C downloaded there, in stream-ordered memory.
        // The simulator runs a stream's work only when it is waited for, so without the events
        // the product would read B before its upload and the download C before its sums.
        cuda::Stream caller;
        cuda::DeviceDense<double> db(br.rows(), br.cols(), -1, caller.get()), dc(cr.rows(), cr.cols(), -1, caller.get());
        for (int round = 0; round < 2; ++round) {
            db.upload(DenseView<const double>(b_block.view()), caller.get());
            const auto before = device_traffic::counts(device_traffic::current_phase()).synchronizations;
            device->multiply_device(db.view(), dc.view(), caller.get());
            const auto waits = device_traffic::counts(device_traffic::current_phase()).synchronizations - before;
            // One wait per exchange step and minibatch before its messages are posted, and one
            // per pipelined minibatch whose predecessor's global step is in flight: none for C.
            const size_type batches = (k + device->minibatch() - 1) / device->minibatch();
            const auto steps = static_cast<size_type>(device->plan().steps.size());
            INFO("minibatch " << device->minibatch() << ", " << steps << " steps, round " << round);
            CHECK(waits <= steps * batches + (batches - 1));
            DenseMatrix<double> c(cr.rows(), cr.cols());
            dc.download(c.view(), caller.get());
            double worst = 0;
            for (size_type i = 0; i < cr.rows(); ++i)
                for (size_type j = 0; j < cr.cols(); ++j) {
                    const double want = expected(cr.row_begin + i, cr.col_begin + j);
                    worst = std::max(worst, std::abs(c(i, j) - want) / (1.0 + std::abs(want)));
                }
            CHECK(all_ranks(worst < tolerance));
        }
    }
}

#else

TEST_CASE("without the CUDA backend, a cuda distributed SpMM says so", "[mpi][dist][cuda]") {
    WARN("skipped device runs: this build has no CUDA backend");
    const auto a = generate::stencil_2d<double, std::int32_t>(6);
    partition::DistSetupOptions options;
    options.run.backend = Backend::cuda;
    for (auto algorithm : {DistAlgorithm::sm_hierarchical, DistAlgorithm::a15d})
        CHECK_THROWS_AS(partition::make_dist_spmm(algorithm, MPI_COMM_WORLD,
                                                  comm::Topology::flat(world_size()), a, 4, options),
                        NotCompiled);
}

#endif
