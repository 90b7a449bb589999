// Tiled ELL: the builder against a serial oracle, the reference kernel on the format's own
// arrays, and every cpu tiled kernel (row-major and column tiles) against that reference.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/cpu/tiled_ell_design.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/kernels/tiled_ell_tiles.hpp"
#include "tests/core/tiled_ell_oracle.hpp"

using namespace tessel;

namespace {

// The shared corpus: empty rows and blocks, one very long row, rows that do not divide the
// block, more rows than a warp, a rectangular shape, nothing at all.
template <typename V, typename I>
std::vector<Csr<V, I>> corpus() {
    auto long_row = generate::banded<V, I>(300, 2);
    {  // row 7 gets every column
        Coo<V, I> coo;
        coo.rows = coo.cols = 300;
        for (size_type i = 0; i < 300; ++i)
            for (size_type e = long_row.row_ptr()[i]; e < long_row.row_ptr()[i + 1]; ++e)
                if (i != 7) {
                    coo.row.push_back(I(i));
                    coo.col.push_back(long_row.col_idx()[e]);
                    coo.values.push_back(long_row.values()[e]);
                }
        for (size_type j = 0; j < 300; ++j) {
            coo.row.push_back(7);
            coo.col.push_back(I(j));
            coo.values.push_back(V(0.5) + V(j % 7));
        }
        long_row = csr_from_coo(coo, "long row");
    }
    return {generate::random_with_empty_rows<V, I>(1000, 700, 5, 0.3, 11),
            generate::power_law<V, I>(777, 2000, 4.0, 2.1, 12),
            generate::stencil_2d<V, I>(23),
            long_row,
            generate::random_uniform<V, I>(65, 5000, 40, 13),
            generate::random_uniform<V, I>(300, 4000, 120, 17),  // long rows: slot order for R > 1
            Csr<V, I>(0, 10, {0}, {}, {}),
            Csr<V, I>(70, 40, std::vector<size_type>(71, 0), {}, {})};
}

const TiledEllConfig configs[] = {{32, 1}, {64, 100}, {128, 4096}, {256, 65536}};

template <typename V>
void require_close(const DenseMatrix<V>& got, const DenseMatrix<V>& want, size_type cols) {
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-12;
    size_type bad = 0;
    for (size_type i = 0; i < want.rows(); ++i)
        for (size_type j = 0; j < cols; ++j)
            if (std::abs(double(got(i, j)) - double(want(i, j))) > tol * (1.0 + std::abs(double(want(i, j))))) ++bad;
    CHECK(bad == 0);
}

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("the two-pass builder equals the serial oracle, array for array", "[tiled-ell][formats]",
                           std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (const auto& a : corpus<V, I>())
        for (const auto& cfg : configs) {
            const auto mine = tiled_ell_from_csr(a, cfg), oracle = test::tiled_ell_oracle(a, cfg);
            INFO("rows " << a.rows() << " block rows " << cfg.block_rows << " buffer " << cfg.buffer_entries);
            test::check_same_tiled_ell(mine, oracle);
        }
    CHECK_THROWS_AS(tiled_ell_from_csr(Csr<V, I>(), TiledEllConfig{48, 16}), InvalidInput);
    CHECK_THROWS_WITH(tiled_ell_from_csr(Csr<V, I>(), TiledEllConfig{64, 70000}),
                      Catch::Contains("buffer_entries 70000 outside 1..65536"));
}

TEST_CASE("reference tiled ELL kernel on a hand-computed case", "[tiled-ell][reference]") {
    // A = [1 0 2; 0 0 0; 0 3 0], B = [1 2; 3 4; 5 6] -> C = [11 14; 0 0; 9 12]
    Csr<double, std::int32_t> a(3, 3, {0, 2, 2, 3}, {0, 2, 1}, {1, 2, 3});
    const auto t = tiled_ell_from_csr(a, {32, 2});  // two stages: columns {0, 1} and {2}
    REQUIRE(t.num_stages() == 2);
    DenseMatrix<double> b(3, 2), c(3, 2, Layout::col_major);
    double bv[] = {1, 2, 3, 4, 5, 6};
    std::copy(bv, bv + 6, b.data());
    reference::spmm<double, std::int32_t>(t, b.view(), c.view());
    CHECK(c(0, 0) == 11);
    CHECK(c(0, 1) == 14);
    CHECK(c(1, 0) == 0);
    CHECK(c(2, 1) == 12);
    reference::spmm<double, std::int32_t>(t, b.view(), c.view(), Epilogue<double>::bias_relu_cap(-10.0, 2.0));
    CHECK(c(0, 0) == 1);
    CHECK(c(0, 1) == 2);
    CHECK(c(1, 1) == 0);
}

TEMPLATE_PRODUCT_TEST_CASE("cpu tiled ELL equals the tiled reference for every register factor", "[tiled-ell][cpu]",
                           std::pair,
                           ((float, std::int32_t), (double, std::int32_t), (float, std::int64_t),
                            (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (const auto& a : corpus<V, I>())
        for (const auto& cfg : {configs[0], configs[1], configs[3]}) {
            const auto t = tiled_ell_from_csr(a, cfg);
            for (size_type k : {1, 2, 3, 16, 17, 33, 70})
                for (int rf : {0, 1, 2, 4, 8, 12, 16, 32, 64}) {
                    if ((rf == 1 || rf == 2) && k > 3) continue;  // many passes: slow, nothing new
                    auto ep = k == 17 ? Epilogue<V>::bias_relu_cap(V(-0.2), V(1)) : Epilogue<V>::none();
                    if (k == 3 || k == 33) ep.alpha = V(-0.5), ep.beta = V(2);  // C := -A·B/2 + 2C
                    const auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 7);
                    DenseMatrix<V> want = generate::random_dense<V>(a.rows(), k, Layout::row_major, 8);
                    DenseMatrix<V> got = want;
                    reference::spmm<V, I>(t, b.view(), want.view(), ep);
                    cpu::spmm_tiled_ell<V, I>(t, b.view(), got.view(), ep, rf);
                    INFO("rows " << a.rows() << " block rows " << cfg.block_rows << " buffer "
                                 << cfg.buffer_entries << " k " << k << " factor " << rf);
                    require_close(got, want, k);
                }
        }
}

TEMPLATE_TEST_CASE("cpu tiled ELL: leading dimensions, bits independent of R, bad factors", "[tiled-ell][cpu]", float,
                   double) {
    using V = TestType;
    const auto a = generate::power_law<V, std::int32_t>(700, 900, 6.0, 2.1, 5);
    const auto t = tiled_ell_from_csr(a, {64, 512});
    // B and C with leading dimension 8 for 3 columns.
    DenseMatrix<V> wide_b(a.cols(), 8, Layout::row_major, V{1}), wide_c(a.rows(), 8), want(a.rows(), 3);
    const DenseView<const V> b3(wide_b.data(), a.cols(), 3, Layout::row_major, 8);
    cpu::spmm_tiled_ell<V, std::int32_t>(t, b3, DenseView<V>(wide_c.data(), a.rows(), 3, Layout::row_major, 8));
    reference::spmm<V, std::int32_t>(t, b3, want.view());
    require_close(wide_c, want, 3);
    // Column j of a K = 19 product equals the K = 1 product of column j, bit for bit: in
    // registers (short rows, staged or in place) and in slot order (long rows).
    const auto long_rows = generate::random_uniform<V, std::int32_t>(300, 4000, 120, 17);
    const auto tl = tiled_ell_from_csr(long_rows, {256, 65536});
    const auto ts = tiled_ell_from_csr(generate::stencil_2d<V, std::int32_t>(30), {64, 512});
    REQUIRE(cpu::detail::prefers_slot_order(tl));
    REQUIRE(!cpu::detail::prefers_slot_order(ts));
    for (const auto* m : {&t, &ts, &tl}) {
        const auto b = generate::random_dense<V>(m->cols, 19, Layout::row_major, 3);
        DenseMatrix<V> c(m->rows, 19);
        cpu::spmm_tiled_ell<V, std::int32_t>(*m, b.view(), c.view());
        for (size_type j = 0; j < 19; j += 6) {
            DenseMatrix<V> bj(m->cols, 1), cj(m->rows, 1);
            for (size_type i = 0; i < m->cols; ++i) bj(i, 0) = b(i, j);
            cpu::spmm_tiled_ell<V, std::int32_t>(*m, bj.view(), cj.view());
            for (size_type i = 0; i < m->rows; ++i) REQUIRE(cj(i, 0) == c(i, j));
        }
    }
    DenseMatrix<V> c3(a.rows(), 3);
    CHECK_THROWS_WITH((cpu::spmm_tiled_ell<V, std::int32_t>(t, b3, c3.view(), {}, 3)),
                      Catch::Contains("3 is not one of the compiled factors"));
    CHECK_THROWS_AS((cpu::spmm_tiled_ell<V, std::int32_t>(t, b3, DenseView<V>(c3.data(), a.rows() - 1, 3))),
                    DimensionMismatch);
}

namespace {

// `count` columns as tiles of `width`, filled from a row-major n x count matrix.
template <typename V>
std::vector<V> to_tiles(const DenseMatrix<V>& m, int width) {
    const size_type tiles = (m.cols() + width - 1) / width;
    std::vector<V> t(static_cast<std::size_t>(tiles * m.rows() * width), V{0});
    for (size_type i = 0; i < m.rows(); ++i)
        for (size_type j = 0; j < m.cols(); ++j) t[(j / width) * m.rows() * width + i * width + j % width] = m(i, j);
    return t;
}

template <typename V>
V tile_value(const std::vector<V>& t, size_type rows, int width, size_type i, size_type j) {
    return t[(j / width) * rows * width + i * width + j % width];
}

}  // namespace

TEMPLATE_TEST_CASE("column-tile kernel equals the reference, with live masks, gathers and sparse inputs",
                   "[tiled-ell][cpu][tiles]", float, double) {
    using V = TestType;
    const size_type n = 333, count = 300;
    const auto a = generate::random_with_empty_rows<V, std::int64_t>(n, n, 9, 0.2, 4);
    const auto t = tiled_ell_from_csr(a, {64, 128});
    auto b = generate::random_dense<V>(n, count, Layout::row_major, 8);
    for (size_type i = 0; i < n; ++i) b(i, 5) = 0;  // a dead column stays dead with a negative bias
    const auto ep = Epilogue<V>::bias_relu_cap(V(-0.05), V(2));
    DenseMatrix<V> want(n, count);
    reference::spmm<V, std::int64_t>(t, b.view(), want.view(), ep);
    for (int width : cpu::tile_widths) {
        INFO("width " << width);
        auto in = to_tiles(b, width);
        std::vector<V> out(in.size(), V(-1));
        const TileBatchView<const V> vin{in.data(), n, width, count};
        const TileBatchView<V> vout{out.data(), n, width, count};
        std::vector<std::uint64_t> masks(static_cast<std::size_t>(vout.tiles()));
        cpu::spmm_tiled_ell_tiles<V, std::int64_t>(t, vin, vout, ep, masks.data());
        size_type bad = 0;
        for (size_type j = 0; j < count; ++j) {
            bool live = false;
            for (size_type i = 0; i < n; ++i) {
                const V got = tile_value(out, n, width, i, j);
                if (std::abs(double(got) - double(want(i, j))) > 1e-4) ++bad;
                live = live || got != V(0);
            }
            CHECK(live == bool((masks[j / width] >> (j % width)) & 1));
        }
        CHECK(bad == 0);
        CHECK(((masks[5 / width] >> (5 % width)) & 1) == 0);
        // Gathered: every third column of the input.
        std::vector<size_type> from;
        for (size_type j = 0; j < count; j += 3) from.push_back(j);
        const size_type gathered = size_type(from.size());
        if (cpu::tiles_can_gather(gathered, width)) {
            std::vector<V> gout(in.size(), V(-1));
            const TileBatchView<V> vg{gout.data(), n, width, gathered};
            cpu::spmm_tiled_ell_tiles<V, std::int64_t>(t, vin, vg, ep, masks.data(), from.data());
            for (size_type q = 0; q < gathered; q += 7)
                for (size_type i = 0; i < n; i += 5)
                    REQUIRE(double(tile_value(gout, n, width, i, q)) == Approx(double(want(i, from[q]))).margin(1e-4));
        }
        // Sparse input: column j of B is row ids[j] of Bᵀ in CSR.
        Coo<V, std::int64_t> coo;
        coo.rows = count;
        coo.cols = n;
        for (size_type j = 0; j < count; ++j)
            for (size_type i = 0; i < n; ++i)
                if (b(i, j) != V(0)) {
                    coo.row.push_back(j);
                    coo.col.push_back(i);
                    coo.values.push_back(b(i, j));
                }
        const auto bt = csr_from_coo(coo, "images");
        std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
        for (size_type j = 0; j < count; ++j) ids[j] = j;
        std::vector<V> sout(in.size(), V(-1));
        cpu::spmm_tiled_ell_tiles_sparse<V, std::int64_t>(t, bt, ids.data(), TileBatchView<V>{sout.data(), n, width, count},
                                                          ep, masks.data());
        for (size_type j = 0; j < count; j += 11)
            for (size_type i = 0; i < n; i += 3)
                REQUIRE(double(tile_value(sout, n, width, i, j)) == Approx(double(want(i, j))).margin(1e-4));
    }
    std::vector<V> buf(static_cast<std::size_t>(n * 4));
    std::uint64_t mask = 0;
    CHECK_THROWS_WITH((cpu::spmm_tiled_ell_tiles<V, std::int64_t>(t, TileBatchView<const V>{buf.data(), n, 4, 4},
                                                                  TileBatchView<V>{buf.data(), n, 4, 4}, ep, &mask)),
                      Catch::Contains("4 is not one of the compiled tile widths"));
}
