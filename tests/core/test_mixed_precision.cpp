// Mixed precision: IEEE half conversions, tiled ELL with half values (every cpu design against
// the reference on the same rounded values), and the operator against its full-precision self.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/cpu/tiled_ell_design.hpp"
#include "core/error.hpp"
#include "core/formats/half.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/kernels/tiled_ell_tiles.hpp"
#include "core/operator/spmm_operator.hpp"

using namespace tessel;

TEST_CASE("half conversions round to nearest and refuse what does not fit", "[half]") {
    CHECK(float_to_half(1.0f) == 0x3C00);
    CHECK(float_to_half(-2.0f) == 0xC000);
    CHECK(float_to_half(65504.0f) == 0x7BFF);
    CHECK(half_to_float(0x3C00) == 1.0f);
    CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));  // the smallest subnormal
    CHECK(half_to_float(float_to_half(1.0f + std::ldexp(1.0f, -11))) == 1.0f);  // a tie goes to even
    CHECK(half_to_float(float_to_half(0.1f)) == Approx(0.1f).epsilon(std::ldexp(1.0, -11)));
    for (std::uint32_t bits = 0; bits < 0x7C00; bits += 7) CHECK(float_to_half(half_to_float(std::uint16_t(bits))) == bits);
    const float ok[] = {1.5f, -65504.0f, 0.0f};
    std::uint16_t out[3];
    to_half(ok, 3, out, "values");
    CHECK(out[0] == 0x3E00);
    const float too_big[] = {1.0f, 2.0f, 70000.0f, std::numeric_limits<float>::quiet_NaN()};
    std::uint16_t out4[4];
    CHECK_THROWS_WITH(to_half(too_big, 4, out4, "values"),
                      Catch::Contains("values") && Catch::Contains("70000") && Catch::Contains("65504"));
    const float nan[] = {std::numeric_limits<float>::quiet_NaN()};
    CHECK_THROWS_AS(to_half(nan, 1, out, "values"), InvalidInput);
}

TEMPLATE_PRODUCT_TEST_CASE("cpu tiled ELL with half values equals the reference on the same values",
                           "[tiled-ell][cpu][half]", std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    const Csr<V, I> matrices[] = {generate::power_law<V, I>(777, 2000, 4.0, 2.1, 12),
                                  generate::random_uniform<V, I>(300, 4000, 120, 17),  // long rows: slot order
                                  generate::stencil_2d<V, I>(23)};
    for (const auto& a : matrices) {
        auto t = tiled_ell_from_csr(a, {64, 1000});
        const auto full = t;
        store_values_in_half(t);
        REQUIRE(t.stores_half());
        REQUIRE(t.values.empty());
        CHECK(t.value_bytes() == 2);
        for (size_type e = 0; e < t.stored(); e += 97)
            CHECK(double(t.value(e)) == Approx(double(full.value(e))).epsilon(std::ldexp(1.0, -11)));
        for (size_type k : {1, 3, 16, 19})
            for (int rf : {0, 1, 4, 16, 64}) {
                if (rf == 1 && k > 3) continue;
                const auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 5);
                DenseMatrix<V> want = generate::random_dense<V>(a.rows(), k, Layout::row_major, 6), got = want;
                const auto ep = Epilogue<V>::scaled(V(1), k == 3 ? V(0.5) : V(0));
                reference::spmm<V, I>(t, b.view(), want.view(), ep);
                cpu::spmm_tiled_ell<V, I>(t, b.view(), got.view(), ep, rf);
                INFO("rows " << a.rows() << " k " << k << " factor " << rf << " slot order "
                             << cpu::detail::prefers_slot_order(t));
                size_type bad = 0;
                for (size_type i = 0; i < a.rows(); ++i)
                    for (size_type j = 0; j < k; ++j)
                        if (std::abs(double(got(i, j)) - double(want(i, j))) > 1e-5 * (1 + std::abs(double(want(i, j)))))
                            ++bad;
                CHECK(bad == 0);
            }
    }
}

TEST_CASE("the column-tile kernel runs on half values too", "[tiled-ell][cpu][half][tiles]") {
    const size_type n = 200, count = 32;
    const auto a = generate::random_with_empty_rows<float, std::int32_t>(n, n, 9, 0.2, 4);
    auto t = tiled_ell_from_csr(a, {64, 128});
    store_values_in_half(t);
    const auto b = generate::random_dense<float>(n, count, Layout::row_major, 8);
    const auto ep = Epilogue<float>::bias_relu_cap(-0.05f, 2.0f);
    DenseMatrix<float> want(n, count);
    reference::spmm<float, std::int32_t>(t, b.view(), want.view(), ep);
    std::vector<float> out(static_cast<std::size_t>(n * count), -1.0f);
    std::uint64_t mask = 0;
    cpu::spmm_tiled_ell_tiles<float, std::int32_t>(t, TileBatchView<const float>{b.data(), n, 32, count},
                                                   TileBatchView<float>{out.data(), n, 32, count}, ep, &mask);
    for (size_type i = 0; i < n; i += 3)
        for (size_type j = 0; j < count; ++j) REQUIRE(out[i * count + j] == Approx(want(i, j)).margin(1e-5));
}

TEST_CASE("a mixed-precision operator stays within half's rounding of the fp32 one", "[operator][half]") {
    // Values near 1 (like xct's intersection lengths): each product carries a relative error
    // of at most 2^-11, so a row's sum of positive terms does too.
    const auto g = generate::random_uniform<float, std::int32_t>(3000, 2500, 60, 3);
    std::vector<float> positive(g.values().begin(), g.values().end());
    for (float& v : positive) v = std::abs(v) + 0.25f;
    const Csr<float, std::int32_t> a(g.rows(), g.cols(), std::vector<size_type>(g.row_ptr().begin(), g.row_ptr().end()),
                                     std::vector<std::int32_t>(g.col_idx().begin(), g.col_idx().end()), positive);
    SpmmOperatorConfig config{Backend::cpu, SparseFormat::tiled_ell, {256, 4096}, 0};
    SpmmOperator<float, std::int32_t> full(Csr<float, std::int32_t>(a), config);
    config.half_values = true;
    SpmmOperator<float, std::int32_t> mixed(Csr<float, std::int32_t>(a), config);
    CHECK(mixed.describe()["values"] == "fp16");
    CHECK(full.describe()["values"] == "fp32");
    CHECK(mixed.kernel_description(16) == "cpu tiled ELL, R = 16 (register tiles), fp16 values");
    // 2 + 2 bytes per stored value against 2 + 4
    CHECK(mixed.bytes() < 0.8 * full.bytes());
    for (size_type k : {1, 16}) {
        DenseMatrix<float> b(a.cols(), k, Layout::row_major, 1.0f), c_full(a.rows(), k), c_mixed(a.rows(), k);
        full.multiply(b.view(), c_full.view());
        mixed.multiply(b.view(), c_mixed.view());
        double worst = 0;
        for (size_type i = 0; i < a.rows(); ++i)
            for (size_type j = 0; j < k; ++j) {
                // b = 1 and the values are positive, so sum|a| = |sum a|
                const double ref = std::abs(double(c_full(i, j)));
                if (ref > 0) worst = std::max(worst, std::abs(double(c_mixed(i, j)) - double(c_full(i, j))) / ref);
            }
        INFO("k " << k);
        CHECK(worst <= std::ldexp(1.0, -11) + 1e-5);  // half's rounding, plus fp32 sums
        CHECK(worst > 0);  // the values really were rounded
    }
    config.format = SparseFormat::csr;
    CHECK_THROWS_WITH((SpmmOperator<float, std::int32_t>(Csr<float, std::int32_t>(a), config)),
                      Catch::Contains("half-precision values need the tiled-ell format"));
}
