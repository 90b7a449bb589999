// The cpu kernels at every x86-64 level this CPU runs (core/cpu/isa.hpp), each against the
// reference backend; the choice of level and its refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/cpu/isa.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/kernels/spgemm.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/kernels/tiled_ell_tiles.hpp"
#include "tests/core/count_far.hpp"

using namespace tessel;
using test::count_far;

namespace {

// Empty rows, rows that do not divide a warp, one long row, long ELL rows (slot order).
template <typename V, typename I>
std::vector<Csr<V, I>> matrices() {
    return {generate::random_with_empty_rows<V, I>(1000, 700, 5, 0.3, 11),
            generate::power_law<V, I>(777, 2000, 4.0, 2.1, 12),
            generate::random_uniform<V, I>(300, 4000, 120, 17)};
}

template <typename V, typename I>
void check_csr_kernels() {
    for (const auto& a : matrices<V, I>())
        for (size_type k : {1, 5, 16, 33}) {
            const auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 7);
            const auto ep = Epilogue<V>::bias_relu_cap(V(-0.2), V(1));
            DenseMatrix<V> want(a.rows(), k, Layout::row_major, 0), split = want, merge = want;
            reference::spmm<V, I>(a, b.view(), want.view(), ep);
            cpu::spmm_row_split<V, I>(a, b.view(), split.view(), ep);
            cpu::spmm_merge<V, I>(a, b.view(), merge.view(), ep);
            INFO("rows " << a.rows() << " k " << k);
            CHECK(count_far(split, want) == 0);
            CHECK(count_far(merge, want) == 0);
        }
}

template <typename V, typename I>
void check_tiled_kernels(bool half) {
    for (const auto& csr : matrices<V, I>()) {
        auto a = tiled_ell_from_csr(csr, {64, 1000});
        if (half) store_values_in_half(a);
        for (size_type k : {1, 3, 16, 17, 33, 70})
            for (int rf : {0, 8, 12, 16, 32, 64}) {
                auto ep = k == 17 ? Epilogue<V>::bias_relu_cap(V(-0.2), V(1)) : Epilogue<V>::none();
                if (k == 3) ep.alpha = V(-0.5), ep.beta = V(2);
                const auto b = generate::random_dense<V>(a.cols, k, Layout::row_major, 7);
                DenseMatrix<V> want = generate::random_dense<V>(a.rows, k, Layout::row_major, 8), got = want;
                reference::spmm<V, I>(a, b.view(), want.view(), ep);
                cpu::spmm_tiled_ell<V, I>(a, b.view(), got.view(), ep, rf);
                const auto bt = generate::random_dense<V>(a.rows, k, Layout::row_major, 9);
                DenseMatrix<V> want_t = generate::random_dense<V>(a.cols, k, Layout::row_major, 10), got_t = want_t;
                reference::spmm_transposed<V, I>(a, bt.view(), want_t.view(), ep);
                cpu::spmm_tiled_ell_transposed<V, I>(a, bt.view(), got_t.view(), ep, rf);
                INFO("rows " << a.rows << " half " << half << " k " << k << " factor " << rf);
                CHECK(count_far(got, want) == 0);
                CHECK(count_far(got_t, want_t) == 0);
            }
    }
}

template <typename V>
void check_tile_kernel() {
    const size_type n = 333, count = 300;
    const auto a = tiled_ell_from_csr(generate::random_with_empty_rows<V, std::int64_t>(n, n, 9, 0.2, 4), {64, 128});
    const auto b = generate::random_dense<V>(n, count, Layout::row_major, 8);
    const auto ep = Epilogue<V>::bias_relu_cap(V(-0.05), V(2));
    DenseMatrix<V> want(n, count);
    reference::spmm<V, std::int64_t>(a, b.view(), want.view(), ep);
    for (int width : cpu::tile_widths) {
        const size_type tiles = (count + width - 1) / width;
        std::vector<V> in(static_cast<std::size_t>(tiles * n * width), V(0)), out(in.size(), V(-1));
        for (size_type i = 0; i < n; ++i)
            for (size_type j = 0; j < count; ++j) in[(j / width) * n * width + i * width + j % width] = b(i, j);
        std::vector<std::uint64_t> masks(static_cast<std::size_t>(tiles));
        cpu::spmm_tiled_ell_tiles<V, std::int64_t>(a, TileBatchView<const V>{in.data(), n, width, count},
                                                   TileBatchView<V>{out.data(), n, width, count}, ep, masks.data());
        size_type bad = 0, wrong_mask = 0;
        for (size_type j = 0; j < count; ++j) {
            bool live = false;
            for (size_type i = 0; i < n; ++i) {
                const V got = out[(j / width) * n * width + i * width + j % width];
                if (std::abs(double(got) - double(want(i, j))) > 1e-4) ++bad;
                live = live || got != V(0);
            }
            if (live != bool((masks[j / width] >> (j % width)) & 1)) ++wrong_mask;
        }
        INFO("width " << width);
        CHECK(bad == 0);
        CHECK(wrong_mask == 0);
    }
}

template <typename V, typename I>
void check_spgemm() {
    for (const auto& a : {generate::random_with_empty_rows<V, I>(500, 500, 6, 0.2, 3),
                          generate::power_law<V, I>(400, 400, 5.0, 2.1, 5)}) {
        const auto want = reference::spgemm(a, a);
        const auto got = cpu::spgemm(a, a, SpgemmOptions{.sort_columns = true});
        REQUIRE(got.row_ptr() == want.row_ptr());
        REQUIRE(got.col_idx() == want.col_idx());
        size_type bad = 0;
        for (std::size_t e = 0; e < want.values().size(); ++e)
            if (std::abs(double(got.values()[e]) - double(want.values()[e])) > 1e-4 * (1 + std::abs(double(want.values()[e]))))
                ++bad;
        CHECK(bad == 0);
    }
}

}  // namespace

TEST_CASE("every level this CPU runs: each kernel equals the reference", "[cpu][isa]") {
    for (cpu::Isa isa : cpu::supported_isas()) {
        const cpu::ScopedIsa at(isa);
        INFO("level " << cpu::isa_name(isa));
        REQUIRE(cpu::active_isa() == isa);
        REQUIRE(std::string(cpu::dispatched_isa_name()) == cpu::isa_name(isa));
        check_csr_kernels<float, std::int32_t>();
        check_csr_kernels<double, std::int64_t>();
        check_tiled_kernels<float, std::int32_t>(false);
        check_tiled_kernels<double, std::int64_t>(false);
        check_tiled_kernels<float, std::int32_t>(true);
        check_tile_kernel<float>();
        check_tile_kernel<double>();
        check_spgemm<double, std::int32_t>();
        check_spgemm<float, std::int64_t>();
    }
}

TEST_CASE("the levels: names, order, the CPU's best", "[cpu][isa]") {
    CHECK(cpu::parse_isa("avx2") == cpu::Isa::avx2);
    CHECK(!cpu::parse_isa("avx512f"));
    CHECK(cpu::isa_supported(cpu::Isa::generic));
    const auto levels = cpu::supported_isas();
    REQUIRE(!levels.empty());
    CHECK(levels.front() == cpu::Isa::generic);
    CHECK(levels.back() == cpu::best_isa());
    CHECK(cpu::choose_isa(nullptr, cpu::Isa::avx2) == cpu::Isa::avx2);
    CHECK(cpu::choose_isa("", cpu::Isa::avx512) == cpu::Isa::avx512);
    CHECK(cpu::choose_isa("generic", cpu::Isa::avx512) == cpu::Isa::generic);
}

TEST_CASE("TESSEL_CPU_ISA: an unknown level or one the CPU lacks is refused in one line", "[cpu][isa]") {
    CHECK_THROWS_AS(cpu::choose_isa("sse9", cpu::Isa::avx512), InvalidInput);
    CHECK_THROWS_WITH(cpu::choose_isa("sse9", cpu::Isa::avx512),
                      Catch::EndsWith(": TESSEL_CPU_ISA: 'sse9' is not a kernel level (generic, avx2 or avx512)"));
    CHECK_THROWS_WITH(cpu::choose_isa("avx512", cpu::Isa::avx2),
                      Catch::EndsWith(": TESSEL_CPU_ISA: avx512 is not supported by this CPU (its best level is avx2)"));
    CHECK_THROWS_WITH(cpu::choose_isa("avx2", cpu::Isa::generic),
                      Catch::EndsWith(": TESSEL_CPU_ISA: avx2 is not supported by this CPU (its best level is generic)"));
}
