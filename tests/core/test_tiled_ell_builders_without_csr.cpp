// Tiled ELL without a CSR copy: the row-block builder and the tiled transpose against core's
// CSR builder and the serial oracle, array for array, for any thread count.
#include <catch2/catch.hpp>

#include <omp.h>

#include <atomic>

#include "core/error.hpp"
#include "core/formats/tiled_ell_rows.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/generators.hpp"
#include "tests/core/tiled_ell_oracle.hpp"

using namespace tessel;

namespace {

// Empty rows and blocks, a long row, rows that do not divide the block, rectangles, nothing.
template <typename V, typename I>
std::vector<Csr<V, I>> lean_corpus() {
    auto dense_row = generate::random_uniform<V, I>(40, 3000, 3, 5);
    {  // row 3 gets every column
        Coo<V, I> coo = coo_from_csr(dense_row);
        for (size_type j = 0; j < 3000; ++j) {
            coo.row.push_back(3);
            coo.col.push_back(I(j));
            coo.values.push_back(V(0.25) + V(j % 5));
        }
        dense_row = csr_from_coo(coo, "dense row");
    }
    return {generate::random_with_empty_rows<V, I>(1000, 700, 5, 0.3, 11),
            generate::power_law<V, I>(777, 2000, 4.0, 2.1, 12),
            generate::stencil_2d<V, I>(23),
            dense_row,
            generate::random_uniform<V, I>(65, 5000, 40, 13),
            Csr<V, I>(0, 10, {0}, {}, {}),
            Csr<V, I>(70, 40, std::vector<size_type>(71, 0), {}, {})};
}

const TiledEllConfig lean_configs[] = {{32, 1}, {64, 100}, {128, 4096}, {256, 65536}};

// Rows of a CSR matrix handed out block by block, as a tracer would.
template <typename V, typename I>
RowBlockSource<V, I> rows_of(const Csr<V, I>& a) {
    return [&a](size_type first, size_type last, RowBlock<V, I>& out) {
        for (size_type i = first; i < last; ++i) {
            for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) out.add(a.col_idx()[e], a.values()[e]);
            out.end_row();
        }
    };
}

template <typename V, typename I>
bool has_stored_zero(const Csr<V, I>& a) {
    for (const V v : a.values())
        if (v == V{0}) return true;
    return false;
}

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("tiled ELL from row blocks equals the CSR builder and the oracle", "[tiled-ell][formats]",
                           std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (const int threads : {1, 3})
        for (const auto& a : lean_corpus<V, I>())
            for (const auto& cfg : lean_configs) {
                omp_set_num_threads(threads);
                const auto mine = tiled_ell_from_row_blocks<V, I>(a.rows(), a.cols(), rows_of(a), cfg);
                INFO("threads " << threads << " rows " << a.rows() << " block rows " << cfg.block_rows << " buffer "
                                << cfg.buffer_entries);
                test::check_same_tiled_ell(mine, test::tiled_ell_oracle(a, cfg));
                test::check_same_tiled_ell(mine, tiled_ell_from_csr(a, cfg));
            }
    omp_set_num_threads(2);
}

TEST_CASE("tiled ELL from row blocks: bad sources and configurations", "[tiled-ell][formats]") {
    using Source = RowBlockSource<float, std::int32_t>;
    auto build = [](size_type rows, size_type cols, const Source& source, TiledEllConfig cfg) {
        return tiled_ell_from_row_blocks<float, std::int32_t>(rows, cols, source, cfg);
    };
    const Source one_row_short = [](size_type first, size_type last, RowBlock<float, std::int32_t>& out) {
        for (size_type i = first + 1; i < last; ++i) out.end_row();
    };
    CHECK_THROWS_WITH(build(32, 10, one_row_short, TiledEllConfig{32, 16}),
                      Catch::Contains("row block source: rows 0..31: got 31 rows and 0 columns for 0 values"));
    const Source column_too_big = [](size_type first, size_type last, RowBlock<float, std::int32_t>& out) {
        for (size_type i = first; i < last; ++i) {
            if (i == 5) out.add(10, 1.0f);
            out.end_row();
        }
    };
    CHECK_THROWS_WITH(build(64, 10, column_too_big, TiledEllConfig{32, 16}),
                      Catch::Contains("column 10 outside 0..9"));
    // The first bad column of the block is named, a negative one too.
    const Source negative_then_big = [](size_type first, size_type last, RowBlock<float, std::int32_t>& out) {
        for (size_type i = first; i < last; ++i) {
            out.add(3, 1.0f);
            if (i == 2) out.add(-2, 1.0f);
            if (i == 3) out.add(11, 1.0f);
            out.end_row();
        }
    };
    CHECK_THROWS_WITH(build(64, 10, negative_then_big, TiledEllConfig{32, 16}),
                      Catch::Contains("column -2 outside 0..9"));
    std::atomic<int> calls{0};
    const Source changes = [&calls](size_type first, size_type last, RowBlock<float, std::int32_t>& out) {
        const int call = calls++;
        for (size_type i = first; i < last; ++i) {
            out.add(static_cast<std::int32_t>(call == 0 ? 1 : 2), 1.0f);
            out.end_row();
        }
    };
    CHECK_THROWS_WITH(build(20, 10, changes, TiledEllConfig{32, 16}),
                      Catch::Contains("the source gave rows 0..19 differently the second time"));
    CHECK_THROWS_WITH(build(20, 10, one_row_short, TiledEllConfig{48, 16}),
                      Catch::Contains("block_rows 48 is not a positive multiple of 32"));
}

TEMPLATE_PRODUCT_TEST_CASE("tiled ELL transpose equals the CSR builder on the transpose", "[tiled-ell][formats]",
                           std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (const auto& a : lean_corpus<V, I>()) {
        REQUIRE_FALSE(has_stored_zero(a));
        const auto at = transpose(a);
        for (const auto& cut_a : lean_configs)
            for (const auto& cut_at : {lean_configs[0], lean_configs[2], lean_configs[3]}) {
                const auto tiled_a = tiled_ell_from_csr(a, cut_a);
                const auto oracle = test::tiled_ell_oracle(at, cut_at);
                for (const int threads : {1, 2, 5}) {
                    omp_set_num_threads(threads);
                    INFO("threads " << threads << " rows " << a.rows() << " A cut " << cut_a.block_rows << "/"
                                    << cut_a.buffer_entries << " A^T cut " << cut_at.block_rows << "/"
                                    << cut_at.buffer_entries);
                    test::check_same_tiled_ell(tiled_ell_transpose(tiled_a, cut_at), oracle);
                }
            }
    }
    omp_set_num_threads(2);
    CHECK_THROWS_WITH(tiled_ell_transpose(TiledEll<V, I>{}, TiledEllConfig{64, 0}),
                      Catch::Contains("buffer_entries 0 outside 1..65536"));
}

TEMPLATE_PRODUCT_TEST_CASE("the transpose's layout alone is the transpose without its slots", "[tiled-ell][formats]",
                           std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (const auto& a : lean_corpus<V, I>())
        for (const auto& cut : lean_configs)
            for (const int threads : {1, 3}) {
                omp_set_num_threads(threads);
                const auto tiled_a = tiled_ell_from_csr(a, lean_configs[1]);
                const auto whole = tiled_ell_transpose(tiled_a, cut);
                const auto layout = tiled_ell_transpose_layout(tiled_a, cut);
                INFO("threads " << threads << " rows " << a.rows() << " cut " << cut.block_rows << "/" << cut.buffer_entries);
                test::check_same_structure(layout, whole);
                CHECK(layout.cols == whole.cols);
                CHECK(layout_stored(layout) == whole.stored());
                CHECK((layout.index.empty() && layout.values.empty() && layout.half_values.empty()));
            }
    omp_set_num_threads(2);
    CHECK_THROWS_WITH(tiled_ell_transpose_layout(TiledEll<V, I>{}, TiledEllConfig{48, 64}),
                      Catch::Contains("block_rows 48 is not a positive multiple of 32"));
}

TEST_CASE("the lean builders keep half values: straight from the rows, and through the transpose",
          "[tiled-ell][formats][half]") {
    using V = float;
    using I = std::int32_t;
    for (const auto& a : lean_corpus<V, I>()) {
        const TiledEllConfig cut{64, 100};
        auto want = tiled_ell_from_csr(a, cut);
        store_values_in_half(want);
        const auto mine = tiled_ell_from_row_blocks<V, I>(a.rows(), a.cols(), rows_of(a), cut, true);
        INFO("rows " << a.rows() << " nnz " << a.nnz());
        CHECK(mine.values.empty());
        CHECK(mine.half_values == want.half_values);
        CHECK(mine.index == want.index);
        CHECK(mine.map == want.map);
        // Aᵀ from half A: the same half values as Aᵀ from fp32 A, then rounded.
        auto want_t = tiled_ell_transpose(tiled_ell_from_csr(a, cut), cut);
        store_values_in_half(want_t);
        const auto mine_t = tiled_ell_transpose(mine, cut);
        CHECK(mine_t.values.empty());
        CHECK(mine_t.half_values == want_t.half_values);
        CHECK(mine_t.index == want_t.index);
    }
    const RowBlockSource<V, I> huge = [](size_type first, size_type last, RowBlock<V, I>& out) {
        for (size_type i = first; i < last; ++i) {
            out.add(0, i == 5 ? V(1e6) : V(1));
            out.end_row();
        }
    };
    CHECK_THROWS_WITH((tiled_ell_from_row_blocks<V, I>(40, 1, huge, {32, 16}, true)),
                      Catch::Contains("row 5 holds 1000000") && Catch::Contains("65504"));
}
