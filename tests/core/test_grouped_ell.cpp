// Tiled ELL of row groups: the conversion keeps every entry (back to the same CSR), its
// reference product equals the CSR reference, neighbouring rows share slots, bad groups refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/formats/grouped_ell.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "tests/core/count_far.hpp"

using namespace tessel;
using test::count_far;

namespace {

template <typename V, typename I>
std::vector<Csr<V, I>> corpus() {
    return {generate::random_with_empty_rows<V, I>(1000, 700, 5, 0.3, 11),
            generate::power_law<V, I>(777, 2000, 4.0, 2.1, 12),
            generate::stencil_2d<V, I>(23),
            generate::banded<V, I>(300, 6),
            generate::random_uniform<V, I>(300, 4000, 120, 17),
            Csr<V, I>(0, 10, {0}, {}, {}),
            Csr<V, I>(70, 40, std::vector<size_type>(71, 0), {}, {})};
}

const TiledEllConfig configs[] = {{256, 1}, {256, 100}, {512, 4096}};

template <typename V, typename I>
void require_same(const Csr<V, I>& got, const Csr<V, I>& want) {
    REQUIRE(got.rows() == want.rows());
    REQUIRE(got.cols() == want.cols());
    CHECK(got.row_ptr() == want.row_ptr());
    CHECK(got.col_idx() == want.col_idx());
    CHECK(got.values() == want.values());
}

// The mean over slot rows of the worst quarter warp's count of distinct positions that share a
// position mod 8 (grouped_bank_groups: the kernel reads 16-byte chunks, eight lanes a wavefront).
double quarter_warp_wavefronts(const GroupedEll<float, std::int32_t>& g) {
    long long total = 0;
    for (size_type m = 0; m < g.slots(); ++m) {
        std::size_t worst = 0;
        for (size_type p = 0; p < 32; p += 8) {
            std::map<int, std::set<int>> by_group;
            for (size_type l = p; l < p + 8; ++l) by_group[g.index[m * 32 + l] % 8].insert(g.index[m * 32 + l]);
            for (const auto& [group, positions] : by_group) worst = std::max(worst, positions.size());
        }
        total += static_cast<long long>(worst);
    }
    return g.slots() ? double(total) / double(g.slots()) : 0.0;
}

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("row groups keep every entry and multiply as the csr reference", "[grouped-ell][formats]",
                           std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (const auto& a : corpus<V, I>())
        for (const auto& cfg : configs) {
            const auto tiled = tiled_ell_from_csr(a, cfg);
            const auto b = generate::random_dense<V>(a.cols(), 5, Layout::row_major, 3);
            DenseMatrix<V> want(a.rows(), 5);
            reference::spmm(a, b.view(), want.view());
            for (size_type group : {1, 2, 4, 8}) {
                CAPTURE(a.rows(), a.nnz(), cfg.block_rows, cfg.buffer_entries, group);
                const auto grouped = group_rows(tiled, group);
                CHECK(grouped.map == tiled.map);
                CHECK(grouped.mapdispl == tiled.mapdispl);
                CHECK(static_cast<size_type>(grouped.values.size()) >= a.nnz());
                if (group == 1) CHECK(grouped.slots() == tiled.stored() / 32);
                require_same(csr_from_grouped_ell(grouped), a);
                DenseMatrix<V> got(a.rows(), 5);
                reference::spmm(grouped, b.view(), got.view());
                CHECK(count_far(got, want) == 0);
            }
        }
}

TEST_CASE("row groups in bank order keep their entries and cost fewer wavefronts", "[grouped-ell][formats]") {
    const auto a = generate::random_uniform<float, std::int32_t>(1024, 3000, 24, 19);
    const auto tiled = tiled_ell_from_csr(a, {512, 1024});
    const auto b = generate::random_dense<float>(a.cols(), 4, Layout::row_major, 3);
    DenseMatrix<float> want(a.rows(), 4);
    reference::spmm(a, b.view(), want.view());
    for (size_type group : {1, 4}) {
        CAPTURE(group);
        BankOrder order;
        const auto grouped = group_rows(tiled, group, &order);
        CHECK(order.wavefronts_before > 1.5);  // random columns: lanes of a slot row collide
        CHECK(order.wavefronts_after < order.wavefronts_before - 0.3);
        require_same(csr_from_grouped_ell(grouped), a);
        DenseMatrix<float> got(a.rows(), 4);
        reference::spmm(grouped, b.view(), got.view());
        CHECK(count_far(got, want) == 0);
        CHECK(order.wavefronts_after < 1.2);
        CHECK(order.wavefronts_after == Approx(quarter_warp_wavefronts(grouped)));  // the arrays as written
    }
}

TEST_CASE("rows next to each other share their slots", "[grouped-ell][formats]") {
    // A band of 13 columns: four consecutive rows span 16, so a group of four reads each
    // staged value for 52 / 16 = 3.25 entries (slots padded to the warp's longest).
    const auto a = generate::banded<float, std::int32_t>(4096, 6);
    const auto tiled = tiled_ell_from_csr(a, {256, 4096});
    CHECK(group_rows(tiled, 1).entries_per_slot() == Approx(1.0).epsilon(0.01));
    CHECK(group_rows(tiled, 2).entries_per_slot() > 1.8);
    CHECK(group_rows(tiled, 4).entries_per_slot() > 3.0);
}

TEST_CASE("row groups of half values keep them half", "[grouped-ell][formats]") {
    const auto a = generate::power_law<float, std::int32_t>(600, 900, 6.0, 2.1, 5);
    auto tiled = tiled_ell_from_csr(a, {256, 128});
    store_values_in_half(tiled);
    const auto grouped = group_rows(tiled, 4);
    CHECK(grouped.stores_half());
    CHECK(grouped.values.empty());
    CHECK(grouped.half_values.size() == grouped.index.size() * 4);
    require_same(csr_from_grouped_ell(grouped), csr_from_tiled_ell(tiled));
    const auto b = generate::random_dense<float>(a.cols(), 3, Layout::row_major, 8);
    DenseMatrix<float> want(a.rows(), 3), got(a.rows(), 3);
    reference::spmm(tiled, b.view(), want.view());
    reference::spmm(grouped, b.view(), got.view());
    CHECK(count_far(got, want) == 0);
}

TEST_CASE("row groups refuse a group that does not fit and a matrix without slots", "[grouped-ell][formats]") {
    const auto a = generate::stencil_2d<float, std::int32_t>(20);
    const auto tiled = tiled_ell_from_csr(a, {64, 256});
    CHECK_THROWS_WITH(group_rows(tiled, 3), Catch::EndsWith("row groups: 3 is not one of 1, 2, 4, 8"));
    CHECK_THROWS_WITH(group_rows(tiled, 4),
                      Catch::EndsWith("row groups: 4 rows per thread need block_rows a multiple of 128, not 64"));
    const auto layout = tiled_ell_transpose_layout(tiled, {64, 256});
    CHECK_THROWS_WITH(group_rows(layout, 2),
                      Catch::EndsWith("row groups: the tiled ELL matrix has no slots (a layout only)"));
}
