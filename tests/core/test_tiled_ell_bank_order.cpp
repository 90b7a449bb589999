// Slots ordered for shared-memory banks: the same matrix (every row's entries, in CSR form),
// the same structure, fewer wavefronts, and the sweep's result on a warp worked by hand.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/formats/bank_order_sweep.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"
#include "core/generators.hpp"
#include "tests/core/tiled_ell_oracle.hpp"

using namespace tessel;

namespace {

// One block of 32 rows, one stage of 64 columns: rows l < 16 hold columns {l, l+16}, rows
// l >= 16 hold {l+16, l+32}. In slot order every slot row has two lanes per bank (lane l and
// l+16 read l and l+32, then l+16 and l+48): 2 wavefronts; the sweep needs 1.
Csr<float, std::int32_t> paired_banks() {
    std::vector<size_type> ptr{0};
    std::vector<std::int32_t> col;
    std::vector<float> val;
    for (int l = 0; l < 32; ++l) {
        const int first = l < 16 ? l : l + 16;
        col.push_back(first);
        col.push_back(first + 16);
        val.push_back(float(l + 1));
        val.push_back(float(-l - 1));
        ptr.push_back(static_cast<size_type>(col.size()));
    }
    return Csr<float, std::int32_t>(32, 64, std::move(ptr), std::move(col), std::move(val), "paired banks");
}

// The same structure and, row by row, the same entries.
template <typename V, typename I>
void check_same_matrix(const TiledEll<V, I>& ordered, const TiledEll<V, I>& original) {
    test::check_same_structure(ordered, original);
    const auto a = csr_from_tiled_ell(ordered), b = csr_from_tiled_ell(original);
    CHECK(a.row_ptr() == b.row_ptr());
    CHECK(a.col_idx() == b.col_idx());
    CHECK(a.values() == b.values());
}

}  // namespace

TEST_CASE("the bank order puts a warp's paired banks in separate slot rows", "[tiled_ell][bank_order]") {
    const auto a = tiled_ell_from_csr(paired_banks(), TiledEllConfig{32, 64});
    auto t = a;
    CHECK(bank_wavefronts(t) == 2.0);
    const BankOrder order = order_slots_for_banks(t);
    CHECK(order.wavefronts_before == 2.0);
    CHECK(order.wavefronts_after == 1.0);
    CHECK(bank_wavefronts(t) == 1.0);
    // Row 0 holds l for l < 16 and l + 32 for l >= 16; row 1 the rest.
    for (int l = 0; l < 32; ++l) {
        CHECK(t.index[l] == (l < 16 ? l : l + 32));
        CHECK(t.index[32 + l] == l + 16);
    }
    check_same_matrix(t, a);
}

TEMPLATE_TEST_CASE("the bank order keeps the matrix and lowers the wavefronts", "[tiled_ell][bank_order]", float,
                   double) {
    using V = TestType;
    const auto csr = GENERATE(generate::random_uniform<V, std::int32_t>(2000, 3000, 40, 7),
                              generate::stencil_2d<V, std::int32_t>(60),
                              generate::power_law<V, std::int32_t>(1500, 2500, 6.0, 2.1, 12));
    const TiledEllConfig config = GENERATE(TiledEllConfig{256, 1024}, TiledEllConfig{64, 128});
    const auto a = tiled_ell_from_csr(csr, config);
    auto t = a;
    const BankOrder order = order_slots_for_banks(t);
    CHECK(order.wavefronts_before == Approx(bank_wavefronts(a)));
    CHECK(order.wavefronts_after == Approx(bank_wavefronts(t)));
    CHECK(order.wavefronts_after <= order.wavefronts_before);
    CHECK(order.wavefronts_after >= 1.0);
    check_same_matrix(t, a);
}

TEST_CASE("the bank order improves a random warp and keeps half values", "[tiled_ell][bank_order]") {
    auto a = tiled_ell_from_csr(generate::random_uniform<float, std::int32_t>(4096, 1024, 24, 3), TiledEllConfig{256, 1024});
    store_values_in_half(a);
    auto t = a;
    const BankOrder order = order_slots_for_banks(t);
    CHECK(order.wavefronts_after < 0.75 * order.wavefronts_before);
    check_same_matrix(t, a);
}

TEST_CASE("the bank order's sweep keeps a lane's repeated index in slot order", "[tiled_ell][bank_order]") {
    // A warp of 3 slot rows where lane 0 holds index 32 twice (an entry, then a zero as shared
    // padding leaves it): its lanes are sorted by keys, not bits, and stably. As made: row 0 has
    // 32 and 64 on bank 0 beside padding's 0 (3 wavefronts), row 1 1 and 2 (1), row 2 32 and 0 (2).
    constexpr int lanes = detail::bank_order_lanes, width = 3;
    std::vector<std::uint16_t> index(width * lanes, 0);
    std::vector<float> value(width * lanes, 0.0f);
    const auto put = [&](int row, int lane, std::uint16_t i, float v) {
        index[row * lanes + lane] = i;
        value[row * lanes + lane] = v;
    };
    put(0, 0, 32, 5.0f), put(1, 0, 1, 6.0f), put(2, 0, 32, 0.0f);
    put(0, 1, 64, 7.0f), put(1, 1, 2, 8.0f);
    detail::RowCost cost(32);
    detail::WarpOrder<float> order(32);
    const auto [before, after] = order.run(index.data(), value.data(), width, cost);
    CHECK(before == 6);
    CHECK(after == 4);
    // Lane 0: 1, then 32 with its value before the zero; lane 1: 2, then 64.
    CHECK(index[0] == 1);
    CHECK(value[0] == 6.0f);
    CHECK(index[lanes] == 32);
    CHECK(value[lanes] == 5.0f);
    CHECK(index[2 * lanes] == 32);
    CHECK(value[2 * lanes] == 0.0f);
    CHECK(index[1] == 2);
    CHECK(value[1] == 8.0f);
    CHECK(index[lanes + 1] == 64);
    CHECK(value[lanes + 1] == 7.0f);
}

TEST_CASE("the bank order leaves warps wider than its limit as they are", "[tiled_ell][bank_order]") {
    // One row of 200 columns in a stage: its warp has 200 slot rows.
    auto csr = generate::random_uniform<float, std::int32_t>(32, 4000, 2, 5);
    Coo<float, std::int32_t> coo = coo_from_csr(csr);
    for (int j = 0; j < 200; ++j) {
        coo.row.push_back(7);
        coo.col.push_back(std::int32_t(j * 17));
        coo.values.push_back(1.0f + float(j));
    }
    const auto a = tiled_ell_from_csr(csr_from_coo(coo, "wide row"), TiledEllConfig{32, 4096});
    REQUIRE(a.warpdispl[1] - a.warpdispl[0] > bank_order_max_width);
    auto t = a;
    order_slots_for_banks(t);
    CHECK(t.index == a.index);
    CHECK(t.values == a.values);
}

TEST_CASE("the bank order names staged values of a size it does not know", "[tiled_ell][bank_order]") {
    auto t = tiled_ell_from_csr(paired_banks(), TiledEllConfig{32, 64});
    CHECK_THROWS_WITH(order_slots_for_banks(t, 2), Catch::Contains("staged values of 2 bytes (4 or 8)"));
    CHECK_THROWS_AS(bank_wavefronts(t, 16), InvalidInput);
}
