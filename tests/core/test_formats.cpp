// Sparse formats: validated construction, conversions and round trips.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/generators.hpp"

using namespace tessel;

namespace {
template <typename V, typename I>
bool same(const Csr<V, I>& x, const Csr<V, I>& y) {
    return x.rows() == y.rows() && x.cols() == y.cols() && x.row_ptr() == y.row_ptr() &&
           x.col_idx() == y.col_idx() && x.values() == y.values();
}
}  // namespace

TEST_CASE("csr_from_coo sorts columns and sums duplicates", "[formats]") {
    Coo<double, std::int32_t> coo;
    coo.rows = 3;
    coo.cols = 4;
    coo.row = {2, 0, 0, 2, 0};
    coo.col = {1, 3, 0, 1, 3};
    coo.values = {1.0, 2.0, 3.0, 4.0, 5.0};
    auto csr = csr_from_coo(coo);
    CHECK(csr.row_ptr() == std::vector<size_type>{0, 2, 2, 3});
    CHECK(csr.col_idx() == std::vector<std::int32_t>{0, 3, 1});
    CHECK(csr.values() == std::vector<double>{3.0, 7.0, 5.0});
}

TEST_CASE("coo validation names the entry", "[formats]") {
    Coo<float, std::int64_t> coo;
    coo.rows = 2;
    coo.cols = 2;
    coo.row = {0, 2};
    coo.col = {1, 1};
    coo.values = {1.0f, 1.0f};
    try {
        coo.validate("m.coo");
        FAIL("no error");
    } catch (const InvalidInput& e) {
        CHECK(e.message() == "m.coo:2: row index 2 outside 0..1");
        CHECK(e.place() == 2);
    }
}

TEST_CASE("csr constructor rejects bad arrays", "[formats]") {
    using C = Csr<double, std::int32_t>;
    CHECK_THROWS_WITH(C(2, 2, {0, 1}, {0}, {1.0}, "a"),
                      Catch::Contains("a: row_ptr has 2 entries, expected 3"));
    CHECK_THROWS_WITH(C(2, 2, {0, 2, 1}, {0}, {1.0}, "a"),
                      Catch::Contains("a:2: row_ptr decreases at row 1"));
    CHECK_THROWS_WITH(C(1, 2, {0, 1}, {5}, {1.0}, "a"),
                      Catch::Contains("a:1: column index 5 outside 0..1"));
    CHECK_THROWS_WITH(C(1, 2, {0, 1}, {0}, {std::numeric_limits<double>::quiet_NaN()}, "a"),
                      Catch::Contains("a:1: value is not finite"));
    CHECK_THROWS_AS(C(1, 2, {0, 2}, {0}, {1.0}, "a"), InvalidInput);
}

TEST_CASE("transpose twice is the identity", "[formats]") {
    auto a = generate::random_with_empty_rows<double, std::int64_t>(300, 170, 6, 0.2, 3);
    auto att = transpose(transpose(a));
    CHECK(same(a, att));
}

TEMPLATE_TEST_CASE("tiled ELL round trips through CSR", "[formats]", float, double) {
    auto a = generate::power_law<TestType, std::int32_t>(1000, 900, 7.0, 2.2, 5);
    for (size_type buffer : {16, 256, 65536}) {
        TiledEllConfig cfg;
        cfg.block_rows = 128;
        cfg.buffer_entries = buffer;
        auto t = tiled_ell_from_csr(a, cfg);
        CHECK(t.nnz == a.nnz());
        CHECK(t.max_stage_entries() <= buffer);
        CHECK(t.average_reuse() >= 1.0);
        CHECK(t.stored() == std::int64_t(t.values.size()));
        CHECK(t.padding_overhead() == Approx(double(t.stored() - a.nnz()) / double(a.nnz())));
        CHECK(same(csr_from_tiled_ell(t), a));
    }
}

TEST_CASE("tiled ELL layout on a hand-made matrix", "[formats]") {
    // 2 rows; row 0 uses columns 4 and 7, row 1 uses 4. Buffer of 1 entry -> 2 stages.
    Csr<float, std::int32_t> a(2, 8, {0, 2, 3}, {7, 4, 4}, {1.f, 2.f, 3.f});
    TiledEllConfig cfg;
    cfg.block_rows = 32;
    cfg.buffer_entries = 1;
    auto t = tiled_ell_from_csr(a, cfg);
    CHECK(t.buffdispl == std::vector<size_type>{0, 2});
    CHECK(t.mapdispl == std::vector<size_type>{0, 1, 2});
    CHECK(t.map == std::vector<std::int32_t>{4, 7});
    CHECK(t.warpdispl == std::vector<size_type>{0, 1, 2});
    CHECK(t.values[0] == 2.f);   // stage 0 (column 4), lane 0
    CHECK(t.values[1] == 3.f);   // stage 0, lane 1
    CHECK(t.values[32] == 1.f);  // stage 1 (column 7), lane 0
    CHECK(t.values[33] == 0.f);  // padding
    CHECK(t.average_reuse() == Approx(1.5));
    CHECK(t.padding_overhead() == Approx((64.0 - 3.0) / 3.0));
}

TEST_CASE("tiled ELL rejects bad configurations", "[formats]") {
    auto a = generate::stencil_2d<double, std::int32_t>(4);
    TiledEllConfig cfg;
    cfg.block_rows = 48;
    CHECK_THROWS_WITH(tiled_ell_from_csr(a, cfg),
                      Catch::Contains("block_rows 48 is not a positive multiple of 32"));
    cfg.block_rows = 64;
    cfg.buffer_entries = 70000;
    CHECK_THROWS_WITH(tiled_ell_from_csr(a, cfg),
                      Catch::Contains("buffer_entries 70000 outside 1..65536"));
}
