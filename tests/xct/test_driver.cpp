// The driver end to end on one rank: outputs and their attributes, resume after a kill equals
// an uninterrupted run, memory limits that say what fits, Data Exchange reconstruction.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "apps/xct/driver/memory_estimate.hpp"
#include "apps/xct/driver/reconstruct.hpp"
#include "apps/xct/geometry/phantom.hpp"
#include "apps/xct/io/checkpoint.hpp"
#include "apps/xct/io/output.hpp"
#include "apps/xct/operator/projector.hpp"
#include "exchange_fixture.hpp"
#include "io/hdf5_file.hpp"
#include "xct_test_util.hpp"

using namespace tessel;
using namespace tessel::xct;
using namespace tessel::xct::test;

namespace {

ReconstructOptions phantom_options(size_type n, size_type slices, int iterations) {
    ReconstructOptions o;
    o.input.kind = InputKind::phantom;
    o.input.phantom_size = n;
    o.input.num_slices = slices;
    o.input.angles = 3 * n / 2;
    o.solver.iterations = iterations;
    o.quiet = true;
    return o;
}

ReconstructResult run(const ReconstructOptions& o) {
    ensure_mpi();
    std::ostringstream log;
    return reconstruct(o, MPI_COMM_WORLD, log);
}

}  // namespace

TEST_CASE("the volume file holds the images and the attributes", "[xct][driver]") {
    TempDir dir;
    auto o = phantom_options(32, 3, 6);
    o.output = dir.file("v.h5");
    o.png_dir = dir.file("png");
    o.png_slices = {0, 2};
    o.metrics_path = dir.file("m.json");
    o.command_line = "tessel-xct --phantom 32";
    const auto r = run(o);
    REQUIRE(r.volume.size() == std::size_t(3 * 32 * 32));
    CHECK(r.iterations == 6);
    CHECK(r.residuals.size() == 7);
    const auto f = io::File::open(o.output);
    CHECK(f.shape(volume_dataset) == std::vector<size_type>{3, 32, 32});
    CHECK(f.read<float>(volume_dataset) == r.volume);
    CHECK(f.read_string_attribute(volume_dataset, "algorithm") == "cgls");
    CHECK(f.read_attribute<std::int64_t>(volume_dataset, "iterations") == 6);
    CHECK(f.read_array_attribute<double>(volume_dataset, "residuals") == r.residuals);
    CHECK(f.read_attribute<double>(volume_dataset, "center") == 16.0);
    CHECK(f.read_string_attribute(volume_dataset, "command_line") == "tessel-xct --phantom 32");
    CHECK(!f.read_string_attribute(volume_dataset, "version").empty());
    CHECK(f.shape("/exchange/residuals") == std::vector<size_type>{3, 7});
    CHECK(std::filesystem::exists(dir.file("png/slice_00000.png")));
    CHECK(std::filesystem::exists(dir.file("png/slice_00002.png")));
    CHECK(std::filesystem::exists(o.metrics_path));
    for (const auto& entry : std::filesystem::directory_iterator(dir.file("")))
        CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
}

TEST_CASE("a killed run resumed from its checkpoint ends exactly like an uninterrupted one", "[xct][driver]") {
    TempDir dir;
    for (auto algorithm : {Algorithm::cgls, Algorithm::sirt}) {
        auto o = phantom_options(32, 3, 8);
        o.solver.algorithm = algorithm;
        o.batch_slices = 1;  // three rounds: the kill lands in the second
        const auto whole = run(o);
        auto killed = o;
        killed.checkpoint_path = dir.file("c.ckpt.h5");
        killed.checkpoint_every = 3;
        killed.stop_after = 13;  // round 1 (0-based), iteration 5; last checkpoint at its iteration 3
        const auto stopped = run(killed);
        CHECK(stopped.stopped);
        CHECK(std::filesystem::exists(killed.checkpoint_path));
        auto resumed = killed;
        resumed.stop_after = 0;
        resumed.resume = true;
        const auto finished = run(resumed);
        INFO("solver " << to_string(algorithm));
        CHECK(!finished.stopped);
        REQUIRE(finished.volume.size() == whole.volume.size());
        CHECK(finished.volume == whole.volume);
        CHECK(finished.residuals == whole.residuals);
    }
}

TEST_CASE("resuming needs the same reconstruction", "[xct][driver]") {
    TempDir dir;
    auto o = phantom_options(24, 2, 4);
    o.checkpoint_path = dir.file("c.ckpt.h5");
    o.checkpoint_every = 2;
    o.stop_after = 2;
    CHECK(run(o).stopped);
    auto other = o;
    other.input.num_slices = 3;
    other.resume = true;
    other.stop_after = 0;
    CHECK(error_of([&] { run(other); }).find(o.checkpoint_path + ": written for another reconstruction (") == 0);
    auto missing = o;
    missing.resume = true;
    missing.checkpoint_path = dir.file("none.h5");
    CHECK(error_of([&] { run(missing); }).find("none.h5: cannot open") != std::string::npos);
}

TEST_CASE("a memory limit streams batches, or says what fits", "[xct][driver]") {
    auto o = phantom_options(32, 6, 3);
    o.turn_symmetry = TurnSymmetry::off;  // the whole operator, which data ranks can split
    o.dry_run = true;
    const auto plan = run(o);
    CHECK(plan.dry_run);
    CHECK(plan.volume.empty());
    CHECK(plan.batch_slices == 6);
    // Room for the matrices and about half of the slices: batches of fewer slices, same answer.
    o.batch_slices = 1;
    const double one = run(o).estimate.total();
    o.batch_slices = 0;
    const double all_six = plan.estimate.total();
    REQUIRE(all_six > one);
    o.dry_run = false;
    const auto all = run(o);
    o.memory_limit = one + 0.5 * (all_six - one);
    const auto streamed = run(o);
    CHECK(streamed.batch_slices > 1);
    CHECK(streamed.batch_slices < 6);
    CHECK(streamed.volume.size() == all.volume.size());
    for (std::size_t i = 0; i < all.volume.size(); ++i) REQUIRE(streamed.volume[i] == Approx(all.volume[i]).margin(1e-5));
    // Too little for even one slice: the error names the data ranks that would fit.
    o.memory_limit = plan.estimate.process + plan.estimate.matrices * 0.3;  // every rank holds the process too
    const auto message = error_of([&] { run(o); });
    CHECK(message.find("exceeds the memory limit") != std::string::npos);
    CHECK(message.find("not even one slice per batch fits with 1 data rank(s); use at least") != std::string::npos);
    // An explicit batch that does not fit names the largest that does.
    o.memory_limit = one + 0.5 * (all_six - one);
    o.batch_slices = 6;
    const auto too_many = error_of([&] { run(o); });
    CHECK(too_many.find("slices per batch fit (--batch-slices ") != std::string::npos);
}

TEST_CASE("row groups count in the build's peak, made for A and Aᵀ at once", "[xct][driver]") {
    MemoryPlan m;
    m.nnz = 1000000;
    m.pixels = 4096;
    m.rays = 6000;
    const MemoryEstimate plain = estimate_memory(m);
    m.row_groups = 4;
    const MemoryEstimate grouped = estimate_memory(m);
    // An index and four fp32 values per slot, a nonzero per slot assumed, for both matrices.
    CHECK(grouped.build_peak - plain.build_peak == Approx(2.0 * 1e6 * (2.0 + 4.0 * 4.0)));
    CHECK(grouped.matrices == plain.matrices);  // the groups live on the device, not here
}

TEST_CASE("a Data Exchange file reconstructs like the phantom it was made from", "[xct][driver]") {
    TempDir dir;
    const size_type n = 48, angles = 72, rows = 2;
    // The phantom's sinogram in natural ray order, two detector rows (the same slice twice).
    Geometry g{n, n, uniform_angles(angles)};
    const auto o = make_ordering(g, DomainOrder::natural);
    auto op = make_local_projector<float>(g, o, {});
    const auto truth = shepp_logan_2d(n);
    DenseMatrix<float> x(g.num_pixels(), 1), y;
    for (size_type i = 0; i < g.num_pixels(); ++i) x(i, 0) = truth[i] * 0.05f;  // moderate absorption
    op->forward(x, y);
    std::vector<float> sinogram;
    for (size_type r = 0; r < rows; ++r)
        for (size_type i = 0; i < g.num_rays(); ++i) sinogram.push_back(y(i, 0));
    for (bool y_theta_x : {false, true}) {
        ExchangeSpec spec;
        spec.num_theta = angles;
        spec.rows = rows;
        spec.cols = n;
        spec.y_theta_x = y_theta_x;
        spec.white = 60000.0f;
        const std::string path = dir.file(y_theta_x ? "ytx.h5" : "tyx.h5");
        write_exchange(path, spec, &sinogram);
        ReconstructOptions r;
        r.input.kind = InputKind::data_exchange;
        r.input.path = path;
        r.input.slices = std::pair<size_type, size_type>{1, 2};
        r.solver.iterations = 30;
        r.quiet = true;
        const auto result = run(r);
        std::vector<float> scaled(truth.begin(), truth.end());
        for (auto& v : scaled) v *= 0.05f;
        INFO("axes " << (y_theta_x ? "y:theta:x" : "theta:y:x"));
        CHECK(psnr(result.volume, scaled) > 28.0);
    }
}
