// The transposed tiled-ELL product C := epilogue(Aᵀ·B) on A's own tiles: the reference
// against the product with A's CSR transpose, the cpu kernel against the reference for every
// register factor, thread count, epilogue and half values.
#include <catch2/catch.hpp>

#include <omp.h>

#include <cmath>

#include "core/generators.hpp"
#include "core/kernels/spmm_kernels.hpp"

using namespace tessel;

namespace {

template <typename V>
void require_close(const DenseMatrix<V>& got, const DenseMatrix<V>& want) {
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-12;
    REQUIRE(got.rows() == want.rows());
    size_type bad = 0;
    for (size_type i = 0; i < want.rows(); ++i)
        for (size_type j = 0; j < want.cols(); ++j)
            if (std::abs(double(got(i, j)) - double(want(i, j))) > tol * (1.0 + std::abs(double(want(i, j))))) ++bad;
    CHECK(bad == 0);
}

template <typename V>
std::vector<Csr<V, int>> matrices() {
    return {generate::random_with_empty_rows<V, int>(1000, 700, 5, 0.3, 11),
            generate::power_law<V, int>(777, 2000, 4.0, 2.1, 12), generate::stencil_2d<V, int>(23),
            generate::random_uniform<V, int>(65, 5000, 40, 13), Csr<V, int>(70, 40, std::vector<size_type>(71, 0), {}, {})};
}

const TiledEllConfig configs[] = {{32, 1}, {64, 100}, {256, 4096}};

}  // namespace

TEMPLATE_TEST_CASE("the reference transposed product equals the product with Aᵀ", "[core][tiled-ell][transposed]",
                   float, double) {
    using V = TestType;
    for (const auto& a : matrices<V>())
        for (const auto& config : configs) {
            const auto tiled = tiled_ell_from_csr(a, config);
            const auto b = generate::random_dense<V>(a.rows(), 3, Layout::row_major, 5);
            DenseMatrix<V> got(a.cols(), 3), want(a.cols(), 3);
            reference::spmm_transposed(tiled, DenseView<const V>(b.view()), got.view());
            reference::spmm(transpose(a), DenseView<const V>(b.view()), want.view());
            require_close(got, want);
        }
}

TEMPLATE_TEST_CASE("the cpu transposed tiled-ELL product matches the reference", "[core][tiled-ell][transposed]",
                   float, double) {
    using V = TestType;
    const int threads_before = omp_get_max_threads();
    for (const auto& a : matrices<V>())
        for (const auto& config : configs) {
            const auto tiled = tiled_ell_from_csr(a, config);
            for (size_type k : {1, 2, 5, 16, 70}) {
                const auto b = generate::random_dense<V>(a.rows(), k, Layout::row_major, 7);
                const auto old = generate::random_dense<V>(a.cols(), k, Layout::row_major, 9);
                for (const auto& ep : {Epilogue<V>::none(), Epilogue<V>::scaled(V(0.5), V(2)),
                                       Epilogue<V>::bias_relu_cap(V(0.1), V(1))}) {
                    DenseMatrix<V> want = old;
                    reference::spmm_transposed(tiled, DenseView<const V>(b.view()), want.view(), ep);
                    for (int r : {0, 1, 4, 16, 64})
                        for (int threads : {1, 2, 3}) {
                            omp_set_num_threads(threads);
                            DenseMatrix<V> got = old;
                            cpu::spmm_tiled_ell_transposed(tiled, DenseView<const V>(b.view()), got.view(), ep, r);
                            INFO("k " << k << ", R " << r << ", threads " << threads);
                            require_close(got, want);
                        }
                }
            }
        }
    omp_set_num_threads(threads_before);
    const auto a = generate::stencil_2d<V, int>(5);
    const auto tiled = tiled_ell_from_csr(a, {});
    DenseMatrix<V> b(a.rows(), 2), c(a.cols() + 1, 2);
    CHECK_THROWS_AS(cpu::spmm_tiled_ell_transposed(tiled, DenseView<const V>(b.view()), c.view()), DimensionMismatch);
}

TEST_CASE("the cpu transposed product reads half values", "[core][tiled-ell][transposed][mixed]") {
    const auto a = generate::power_law<float, int>(777, 2000, 4.0, 2.1, 12);
    auto tiled = tiled_ell_from_csr(a, {64, 100});
    store_values_in_half(tiled);
    for (size_type k : {1, 16}) {
        const auto bk = generate::random_dense<float>(a.rows(), k, Layout::row_major, 3);
        DenseMatrix<float> got(a.cols(), k), want(a.cols(), k);
        reference::spmm_transposed(tiled, DenseView<const float>(bk.view()), want.view());
        cpu::spmm_tiled_ell_transposed(tiled, DenseView<const float>(bk.view()), got.view());
        require_close(got, want);
    }
}
