// The tile-size advice on hand-made rate tables (issue 17): interpolation of the rates, the
// model's sums against the inspector's exact flops and GEMMs, the recommendation turning with
// the rates, merged tilings computing the same product, and the table's file.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/advice/gemm_rate_table.hpp"
#include "apps/ccsd_abcd/advice/tile_merge.hpp"
#include "apps/ccsd_abcd/advice/tiling_advice.hpp"
#include "apps/ccsd_abcd/advice/tiling_candidates.hpp"
#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/inspector/symbolic_product.hpp"
#include "core/backend.hpp"

using namespace tessel;
using namespace tessel::abcd;

namespace {

// Sizes {8, 64}; the rate doubles with every dimension at 64: 1, 2, 4, 8 GFLOP/s.
GemmRateTable doubling_table() {
    GemmRateTable t;
    t.machine = "hand-made";
    t.sizes = {8, 64};
    t.rates.assign(8, 0.0);
    for (std::size_t m = 0; m < 2; ++m)
        for (std::size_t n = 0; n < 2; ++n)
            for (std::size_t k = 0; k < 2; ++k) t.at(m, n, k) = 1e9 * double(1 << (m + n + k));
    return t;
}

GemmRateTable flat_table(double rate, double overhead, double fill, double first_touch = 0) {
    GemmRateTable t;
    t.sizes = {1};
    t.rates = {rate};
    t.gemm_overhead_seconds = overhead;
    t.fill_seconds_per_value = fill;
    t.first_touch_seconds_per_value = first_touch;
    return t;
}

// Tiles of 4 with a block-diagonal-ish shape: merging them adds zeros (more flops) but makes
// far fewer, larger GEMMs.
Problem small_tiles() {
    std::vector<size_type> sizes(16, 4);
    std::vector<std::pair<size_type, size_type>> a, b;
    for (size_type i = 0; i < 16; ++i)
        for (size_type j = 0; j < 16; ++j) {
            if ((i + j) % 3 == 0) a.emplace_back(i, j);
            if (i == j || (i + 1) % 16 == j) b.emplace_back(i, j);
        }
    return test::hand_problem(sizes, sizes, sizes, a, b, 9);
}

double c_norm(const Problem& p) {
    const Plan plan = inspect(p, test::one_process(size_type(1) << 30));
    auto a = make_local_a<double>(p, plan.grid, 0);
    TileStore<double> c;
    ExecutorOptions eo;
    eo.backend = Backend::cpu;
    execute<double>(p, plan, a, c, eo);
    double s = 0;
    for (const auto& tile : c)
        for (double x : tile) s += x * x;
    return std::sqrt(s);
}

/// t written to `path` as JSON and read back.
GemmRateTable written_and_read(const GemmRateTable& t, const std::string& path) {
    {
        std::ofstream(path) << rate_table_json(t);
    }
    return read_rate_table(path);
}

}  // namespace

TEST_CASE("rates are interpolated in log2 of the sizes and clamped outside the table", "[abcd][advice]") {
    const GemmRateTable t = doubling_table();
    CHECK(t.rate(8, 8, 8) == Approx(1e9));
    CHECK(t.rate(64, 64, 64) == Approx(8e9));
    CHECK(t.rate(64, 8, 8) == Approx(2e9));
    CHECK(t.rate(16, 16, 16) == Approx(2e9));  // a third of the way in each of three dimensions
    CHECK(t.rate(16, 8, 8) == Approx(std::pow(2.0, 1.0 / 3) * 1e9));
    // Below the smallest size (8) a call costs what an 8 x 8 x 8 one costs.
    CHECK(t.rate(2, 3, 1) == Approx(1e9 * (2.0 / 8) * (3.0 / 8) * (1.0 / 8)));
    CHECK(t.gemm_seconds(2, 3, 1) == Approx(t.gemm_seconds(8, 8, 8)));
    CHECK(t.gemm_seconds(4, 64, 64) == Approx(t.gemm_seconds(8, 64, 64)));
    CHECK(t.rate(5000, 64, 100) == Approx(8e9));
    CHECK(t.gemm_seconds(64, 64, 64) == Approx(2.0 * 64 * 64 * 64 / 8e9));
}

TEST_CASE("the prediction sums the inspector's exact GEMMs, the overhead and the fill", "[abcd][advice]") {
    const Problem p = test::hand_problem({30, 20, 10}, {40, 60}, {50, 70}, {{0, 0}, {0, 1}, {2, 1}}, {{0, 0}, {1, 0}, {1, 1}});
    const GemmRateTable t = flat_table(2e9, 1e-6, 1e-9);
    const TilingPrediction r = predict_tiling(p, t, 2, "x", 1);
    const SymbolicProduct sp = symbolic_product(p);
    CHECK(r.flops == sp.flops);
    CHECK(r.gemms == sp.gemms);
    CHECK(r.c_tiles == sp.c_shape.nnz());
    // A(0,0)B(0,0), A(0,1)B(1,0), A(0,1)B(1,1), A(2,1)B(1,0), A(2,1)B(1,1)
    const double flops = 2.0 * (30 * 50 * 40 + 30 * 50 * 60 + 30 * 70 * 60 + 10 * 50 * 60 + 10 * 70 * 60);
    CHECK(r.flops == flops);
    CHECK(r.gemms == 5);
    const double b_area = 40 * 50 + 60 * 50 + 60 * 70;
    const double c_area = 30 * 50 + 30 * 70 + 10 * 50 + 10 * 70;
    CHECK(r.predicted_seconds == Approx((flops / 2e9 + 5 * 1e-6 + b_area * 1e-9) / 2));
    CHECK(r.memory_bytes == Approx(8.0 * ((30 * 40 + 30 * 60 + 10 * 60) + b_area + c_area)));
    // Every value of B and C is written to memory not touched before.
    const TilingPrediction fresh = predict_tiling(p, flat_table(2e9, 1e-6, 1e-9, 3e-8), 2, "x", 1);
    CHECK(fresh.fill_seconds == Approx(b_area * 1e-9 + (b_area + c_area) * 3e-8));
    CHECK(fresh.predicted_seconds - r.predicted_seconds == Approx((b_area + c_area) * 3e-8 / 2));
    CHECK_THROWS_WITH(predict_tiling(p, t, 0), Catch::Contains("--advise-tiles: workers must be at least 1"));
}

TEST_CASE("the recommendation follows the rates: fewest flops when GEMMs run alike, larger tiles when small ones are slow",
          "[abcd][advice]") {
    const Problem p = small_tiles();
    const auto candidates = tiling_candidates(p, nullptr);
    REQUIRE(candidates.size() >= 3);
    CHECK(candidates[0].label == "merge x1");
    CHECK(candidates[1].label == "merge x2");
    auto predict_all = [&](const GemmRateTable& t) {
        std::vector<TilingPrediction> out;
        for (const auto& c : candidates) out.push_back(predict_tiling(c.problem, t, 1, c.label, c.parameter));
        return out;
    };
    // Same rate for every shape, no overhead: the tiling with the fewest flops (the given one).
    const auto flat = predict_all(flat_table(1e9, 0, 0));
    for (std::size_t x = 1; x < flat.size(); ++x) CHECK(flat[x].flops > flat[0].flops);
    CHECK(recommend_tiling(flat, 0.0) == 0);
    // 4 x 4 GEMMs 100 times slower than 32-sized ones: merged tiles win despite their flops.
    GemmRateTable steep;
    steep.sizes = {4, 32};
    steep.rates.assign(8, 0.0);
    for (std::size_t m = 0; m < 2; ++m)
        for (std::size_t n = 0; n < 2; ++n)
            for (std::size_t k = 0; k < 2; ++k) steep.at(m, n, k) = (m + n + k == 3) ? 1e10 : 1e8;
    const auto fast_large = predict_all(steep);
    CHECK(recommend_tiling(fast_large, 0.0) > 0);
    // A large per-GEMM overhead alone also favours fewer GEMMs.
    const auto costly_calls = predict_all(flat_table(1e9, 1e-3, 0));
    const std::size_t pick = recommend_tiling(costly_calls);
    CHECK(costly_calls[pick].gemms < costly_calls[0].gemms);
    const std::string table = advice_table(costly_calls, pick);
    CHECK_THAT(table, Catch::Contains("* " + costly_calls[pick].label));
    CHECK_THAT(table, Catch::Contains("recommended: " + costly_calls[pick].label + " (predicted "));
    CHECK_THROWS_WITH(recommend_tiling({}), Catch::Contains("no candidate tiling"));
}

TEST_CASE("merged tilings compute the same product with zeros filled in", "[abcd][advice]") {
    const Problem p = small_tiles();
    const double norm = c_norm(p);
    for (size_type f : {2, 3, 5}) {
        const Problem q = merge_tiles(p, f);
        CHECK(q.m() == p.m());
        CHECK(q.m_tiling.count() == (16 + f - 1) / f);
        CHECK(q.a_shape.area(q.m_tiling, q.k_tiling) >= p.a_shape.area(p.m_tiling, p.k_tiling));
        CHECK(c_norm(q) == Approx(norm).epsilon(1e-12));
    }
    CHECK_THROWS_WITH(merge_tiling(p.m_tiling, 0), Catch::Contains("--tiling: the merge factor must be at least 1, not 0"));
}

TEST_CASE("rate tables are written and read back; a bad file is named", "[abcd][advice]") {
    GemmRateTable t = doubling_table();
    t.gemm_overhead_seconds = 2e-7;
    t.fill_seconds_per_value = 3e-9;
    t.first_touch_seconds_per_value = 4e-8;
    const std::string path = "abcd-rate-table-test.json";
    const GemmRateTable r = written_and_read(t, path);
    CHECK(r.machine == "hand-made");
    CHECK(r.sizes == t.sizes);
    CHECK(r.rates == t.rates);
    CHECK(r.gemm_overhead_seconds == t.gemm_overhead_seconds);
    CHECK(r.first_touch_seconds_per_value == t.first_touch_seconds_per_value);
    CHECK(r.version == rate_table_version);
    {
        // A table written before the first-touch cost: version 1, measured again when cached.
        std::ofstream(path) << "{\"format\": \"tessel-abcd gemm rates\", \"machine\": \"m\", \"sizes\": [8], "
                               "\"rates_flops_per_second\": [1e9], \"gemm_overhead_seconds\": 0, "
                               "\"fill_seconds_per_value\": 0}";
    }
    const GemmRateTable old = read_rate_table(path);
    CHECK(old.version == 1);
    CHECK(old.first_touch_seconds_per_value == 0);
    {
        std::ofstream(path) << "{\"format\": \"tessel-abcd gemm rates\", \"machine\": \"m\", \"sizes\": [8, 4], "
                               "\"rates_flops_per_second\": [1,1,1,1,1,1,1,1], \"gemm_overhead_seconds\": 0, "
                               "\"fill_seconds_per_value\": 0}";
    }
    CHECK_THROWS_WITH(read_rate_table(path),
                      Catch::Contains("abcd-rate-table-test.json: the rate table's sizes must be positive and ascending"));
    std::remove(path.c_str());
    CHECK(rate_table_cache_path("a") != rate_table_cache_path("b"));
}

TEST_CASE("candidates the model cannot tell apart: the one with the fewest GEMMs", "[abcd][advice]") {
    std::vector<TilingPrediction> c(3);
    c[0].predicted_seconds = 1.00;
    c[0].gemms = 1000;
    c[1].predicted_seconds = 1.08;  // within 10 %
    c[1].gemms = 100;
    c[2].predicted_seconds = 1.20;  // outside
    c[2].gemms = 10;
    CHECK(recommend_tiling(c, 0.10) == 1);
    CHECK(recommend_tiling(c) == 0);  // the app's rule: the fastest predicted
    CHECK(recommend_tiling(c, 0.25) == 2);
}

TEST_CASE("a measured table: positive rates, the first-touch cost, and its file read back", "[abcd][advice]") {
    const GemmRateTable t = measure_gemm_rate_table(true, {1, 8}, 0.0005);
    REQUIRE_NOTHROW(t.validate("measured"));
    CHECK(t.version == rate_table_version);
    CHECK(t.rate(8, 8, 8) > t.rate(1, 1, 1));
    // Writing a page for the first time costs the kernel a page fault: far more than the value.
    CHECK(t.first_touch_seconds_per_value > 0);
    const std::string path = "abcd-rate-table-measured.json";
    const GemmRateTable r = written_and_read(t, path);
    CHECK(r.rates == t.rates);
    CHECK(r.first_touch_seconds_per_value == t.first_touch_seconds_per_value);
    std::remove(path.c_str());
}

namespace {

GemmRateTable cuda_table(double rate, double h2d, double d2h, double fill = 0) {
    GemmRateTable t = flat_table(rate, 0, fill);
    t.backend = "cuda";
    t.h2d_seconds_per_byte = h2d;
    t.d2h_seconds_per_byte = d2h;
    return t;
}

}  // namespace

TEST_CASE("the cuda model: GEMM-bound, copy-bound, and the chunks' copies hidden behind GEMMs", "[abcd][advice]") {
    Problem p = small_tiles();
    p.values = std::make_shared<test::HostOnlyTiles>(p.values);  // B made on the host and copied up
    // A budget that splits A into several chunks per block (a chunk gets a quarter of it).
    const Plan plan = inspect(p, test::one_process(size_type(16) << 10));
    REQUIRE(plan.processes[0].chunk_count() > 2);
    const double h2d = double(plan.total(&ProcessPlan::h2d_bytes)), d2h = double(plan.total(&ProcessPlan::d2h_bytes));

    // Free copies: the GEMMs alone, at a flat rate.
    const TilingPrediction gemm_bound = predict_tiling_cuda(p, plan, cuda_table(1e9, 0, 0), 2, "g", 1);
    CHECK(gemm_bound.flops == plan.product.flops);
    CHECK(gemm_bound.gemms == plan.product.gemms);
    CHECK(gemm_bound.predicted_seconds == Approx(plan.product.flops / 1e9).epsilon(1e-9));
    CHECK(gemm_bound.overhead_seconds == 0);

    // GEMMs almost free: every byte's copy is on the path, none hidden.
    const TilingPrediction copy_bound = predict_tiling_cuda(p, plan, cuda_table(1e30, 1e-9, 2e-9), 2);
    CHECK(copy_bound.predicted_seconds == Approx(h2d * 1e-9 + d2h * 2e-9).epsilon(1e-6));

    // Both: a chunk's copy behind the previous chunk's GEMMs costs only what they do not cover,
    // so the time lies between the larger of the two and their sum.
    const TilingPrediction both = predict_tiling_cuda(p, plan, cuda_table(1e9, 1e-9, 2e-9), 2);
    const double gemms = plan.product.flops / 1e9, copies = h2d * 1e-9 + d2h * 2e-9;
    CHECK(both.predicted_seconds >= std::max(gemms, copies) * (1 - 1e-9));
    CHECK(both.predicted_seconds < gemms + copies);
    CHECK(both.predicted_seconds == Approx(both.gemm_seconds + both.overhead_seconds + both.fill_seconds).epsilon(1e-9));

    // B's values are made on the host by the process's threads: twice the threads, half the time.
    const double values = p.b_shape.area(p.k_tiling, p.n_tiling);
    const TilingPrediction one = predict_tiling_cuda(p, plan, cuda_table(1e30, 0, 0, 1e-6), 1);
    const TilingPrediction two = predict_tiling_cuda(p, plan, cuda_table(1e30, 0, 0, 1e-6), 2);
    CHECK(one.fill_seconds == Approx(values * 1e-6).epsilon(1e-6));
    CHECK(two.fill_seconds == Approx(one.fill_seconds / 2).epsilon(1e-9));
    CHECK_THROWS_WITH(predict_tiling_cuda(p, plan, cuda_table(1e9, 0, 0), 0),
                      Catch::Contains("host threads must be at least 1"));
}

TEST_CASE("the cuda model: generated B is made on the device, neither filled nor copied", "[abcd][advice]") {
    const Problem p = small_tiles();
    const Plan plan = inspect(p, test::one_process(size_type(16) << 10));
    double b_bytes = 0;
    for (const auto& b : plan.processes[0].blocks) b_bytes += double(b.b_bytes);
    REQUIRE(b_bytes > 0);
    const double h2d = double(plan.total(&ProcessPlan::h2d_bytes)), d2h = double(plan.total(&ProcessPlan::d2h_bytes));
    const TilingPrediction r = predict_tiling_cuda(p, plan, cuda_table(1e30, 1e-9, 2e-9, 1e-6), 2);
    CHECK(r.fill_seconds == 0);
    CHECK(r.predicted_seconds == Approx((h2d - b_bytes) * 1e-9 + d2h * 2e-9).epsilon(1e-6));
}

TEST_CASE("the cuda model on two processes: the busiest device is the time", "[abcd][advice]") {
    const Problem p = small_tiles();
    InspectorOptions io = test::one_process(size_type(1) << 30);
    io.grid = ProcessGrid{1, 2};
    const Plan plan = inspect(p, io);
    const TilingPrediction r = predict_tiling_cuda(p, plan, cuda_table(1e9, 0, 0), 1);
    double busiest = 0;
    for (const auto& process : plan.processes) busiest = std::max(busiest, process.flops / 1e9);
    CHECK(r.predicted_seconds == Approx(busiest).epsilon(1e-9));
    CHECK(r.gemm_seconds == Approx(plan.product.flops / 1e9).epsilon(1e-9));
}

TEST_CASE("no candidate fits: refused; a candidate that does not fit is never recommended", "[abcd][advice]") {
    std::vector<TilingPrediction> c(2);
    c[0].predicted_seconds = std::numeric_limits<double>::infinity();
    c[1].predicted_seconds = 2.0;
    CHECK(recommend_tiling(c) == 1);
    CHECK(advice_table(c, 1).find("recommended: ") != std::string::npos);
    c[1].predicted_seconds = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(recommend_tiling(c), Catch::Contains("no candidate tiling fits the memory budget"));
}

TEST_CASE("cuda rate tables keep their backend and copy rates; an unknown backend is named", "[abcd][advice]") {
    const GemmRateTable t = cuda_table(5e12, 4e-11, 5e-11, 3e-9);
    const std::string path = "abcd-rate-table-cuda.json";
    const GemmRateTable r = written_and_read(t, path);
    CHECK(r.backend == "cuda");
    CHECK(r.h2d_seconds_per_byte == t.h2d_seconds_per_byte);
    CHECK(r.d2h_seconds_per_byte == t.d2h_seconds_per_byte);
    {
        std::ofstream(path) << "{\"format\": \"tessel-abcd gemm rates\", \"backend\": \"gpu\", \"machine\": \"m\", "
                               "\"sizes\": [8], \"rates_flops_per_second\": [1e9], \"gemm_overhead_seconds\": 0, "
                               "\"fill_seconds_per_value\": 0}";
    }
    CHECK_THROWS_WITH(read_rate_table(path),
                      Catch::Contains("abcd-rate-table-cuda.json: the rate table's backend is \"gpu\", not cpu or cuda"));
    std::remove(path.c_str());
}

TEST_CASE("a measured cuda table: cuBLAS rates and copy rates of device 0", "[abcd][advice][cuda]") {
    if (cuda::device_count() == 0) {
        WARN("no CUDA device (or CUDA not in this build): the cuda rate table is not measured");
        CHECK_THROWS(measure_cuda_gemm_rate_table(true, {1, 8}, 0.0005));
        return;
    }
    const GemmRateTable t = measure_cuda_gemm_rate_table(true, {1, 64}, 0.002);
    REQUIRE_NOTHROW(t.validate("measured"));
    CHECK(t.backend == "cuda");
    CHECK(t.machine.find("cuBLAS") != std::string::npos);
    CHECK(t.rate(64, 64, 64) > t.rate(1, 1, 1));
    CHECK(t.h2d_seconds_per_byte > 0);
    CHECK(t.d2h_seconds_per_byte > 0);
}
