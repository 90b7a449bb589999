// SpMM: the reference on hand-computed cases, every cpu and cuda kernel against it.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

#include "core/cpu/streaming_policy.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm.hpp"

using namespace tessel;

TEST_CASE("reference spmm on a hand-computed case", "[spmm][reference]") {
    // A = [1 0 2; 0 0 0; 0 3 0], B = [1 2; 3 4; 5 6] -> C = [11 14; 0 0; 9 12]
    Csr<double, std::int32_t> a(3, 3, {0, 2, 2, 3}, {0, 2, 1}, {1, 2, 3});
    DenseMatrix<double> b(3, 2), c(3, 2, Layout::col_major);
    double bv[] = {1, 2, 3, 4, 5, 6};
    std::copy(bv, bv + 6, b.data());
    reference::spmm<double, std::int32_t>(a, b.view(), c.view());
    CHECK(c(0, 0) == 11);
    CHECK(c(0, 1) == 14);
    CHECK(c(1, 0) == 0);
    CHECK(c(2, 1) == 12);
    // Fused bias + ReLU + cap: min(12, max(0, z - 10)).
    reference::spmm<double, std::int32_t>(a, b.view(), c.view(),
                                          Epilogue<double>::bias_relu_cap(-10.0, 2.0));
    CHECK(c(0, 0) == 1);
    CHECK(c(0, 1) == 2);
    CHECK(c(1, 1) == 0);
}

TEST_CASE("reference spmm with alpha and beta on a hand-computed case", "[spmm][reference]") {
    // A = [1 2; 0 3], B = [1; 1] -> A·B = [3; 3]; C0 = [10; -4]
    Csr<double, std::int32_t> a(2, 2, {0, 2, 3}, {0, 1, 1}, {1, 2, 3});
    DenseMatrix<double> b(2, 1, Layout::row_major, 1.0), c(2, 1);
    c(0, 0) = 10;
    c(1, 0) = -4;
    reference::spmm<double, std::int32_t>(a, b.view(), c.view(), Epilogue<double>::scaled(2.0, 0.5));
    CHECK(c(0, 0) == 11);  // 2·3 + 0.5·10
    CHECK(c(1, 0) == 4);   // 2·3 + 0.5·(-4)
    auto ep = Epilogue<double>::bias_relu_cap(-1.0, 8.0);
    ep.beta = 1;
    reference::spmm<double, std::int32_t>(a, b.view(), c.view(), ep);
    CHECK(c(0, 0) == 8);  // min(8, 3 + 11 - 1)
    CHECK(c(1, 0) == 6);  // 3 + 4 - 1
}

TEST_CASE("spmm rejects mismatched shapes", "[spmm]") {
    auto a = generate::stencil_2d<float, std::int32_t>(3);
    DenseMatrix<float> b(8, 4), c(9, 4);
    CHECK_THROWS_AS((reference::spmm<float, std::int32_t>(a, b.view(), c.view())), DimensionMismatch);
    CHECK_THROWS_WITH((cpu::spmm_row_split<float, std::int32_t>(a, b.view(), c.view())),
                      Catch::Contains("A is 9x9, B is 8x4, C is 9x4"));
}

namespace {

// A kernel under test: runs C := epilogue(A·B) with row-major B and C.
template <typename V, typename I>
using Kernel = std::function<void(const Csr<V, I>&, DenseView<const V>, DenseView<V>,
                                  const Epilogue<V>&)>;

// C before the call: random when the epilogue reads it (beta != 0), else NaN (proving that
// a kernel with beta = 0 never reads C).
template <typename V>
DenseMatrix<V> initial_c(size_type rows, size_type k, const Epilogue<V>& ep) {
    if (ep.reads_output()) return generate::random_dense<V>(rows, k, Layout::row_major, 9);
    return DenseMatrix<V>(rows, k, Layout::row_major, std::numeric_limits<V>::quiet_NaN());
}

template <typename V, typename I>
void check_against_reference(const Csr<V, I>& a, size_type k, const Kernel<V, I>& kernel,
                             const Epilogue<V>& ep) {
    auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 7);
    DenseMatrix<V> expected = initial_c(a.rows(), k, ep), got = initial_c(a.rows(), k, ep);
    reference::spmm<V, I>(a, b.view(), expected.view(), ep);
    kernel(a, b.view(), got.view(), ep);
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-12;
    size_type bad = 0;
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type j = 0; j < k; ++j) {
            const double scale = 1.0 + double(a.row_nnz(i));
            if (!(std::abs(double(got(i, j)) - double(expected(i, j))) <= tol * scale)) ++bad;
        }
    INFO("rows " << a.rows() << " nnz " << a.nnz() << " k " << k << " alpha " << ep.alpha << " beta " << ep.beta);
    CHECK(bad == 0);
}

// alpha and beta, alone and before the bias and clamp.
template <typename V>
std::vector<Epilogue<V>> scaled_epilogues() {
    auto with_clamp = Epilogue<V>::bias_relu_cap(V(-0.2), V(1));
    with_clamp.alpha = V(2);
    with_clamp.beta = V(-1);
    return {Epilogue<V>::scaled(V(-0.5), V(2)), Epilogue<V>::scaled(V(1), V(1)), with_clamp};
}

// The matrices every kernel must handle: empty rows, one very long row, rows not a multiple
// of 32, more rows than a warp, a rectangular shape.
template <typename V, typename I>
std::vector<Csr<V, I>> test_matrices() {
    return {generate::random_with_empty_rows<V, I>(1000, 700, 5, 0.3, 11),
            generate::power_law<V, I>(777, 2000, 4.0, 2.1, 12),
            generate::stencil_2d<V, I>(23),
            generate::banded<V, I>(301, 9),
            generate::random_uniform<V, I>(65, 5000, 40, 13),
            Csr<V, I>(0, 10, {0}, {}, {}),
            Csr<V, I>(40, 40, std::vector<size_type>(41, 0), {}, {})};
}

template <typename V, typename I>
void check_kernel(const Kernel<V, I>& kernel) {
    for (const auto& a : test_matrices<V, I>())
        for (size_type k : {1, 3, 8, 16, 17, 32, 70}) {
            check_against_reference(a, k, kernel, Epilogue<V>::none());
            if (k == 17) check_against_reference(a, k, kernel, Epilogue<V>::bias_relu_cap(V(-0.2), V(1)));
            if (k == 3 || k == 32)
                for (const auto& ep : scaled_epilogues<V>()) check_against_reference(a, k, kernel, ep);
        }
}

template <typename V, typename I>
Kernel<V, I> tiled_kernel(Backend backend, size_type block_rows, size_type buffer, int factor) {
    return [=](const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep) {
        TiledEllConfig cfg;
        cfg.block_rows = block_rows;
        cfg.buffer_entries = buffer;
        auto t = tiled_ell_from_csr(a, cfg);
        if (backend == Backend::cuda)
            cuda::spmm_tiled_ell(t, b, c, ep, factor);
        else
            cpu::spmm_tiled_ell(t, b, c, ep, factor);
    };
}

// The same body for every backend: all of its kernels against the reference.
template <typename V, typename I>
void check_backend(Backend backend) {
    if (backend == Backend::cpu) {
        SECTION("row split") { check_kernel<V, I>(cpu::spmm_row_split<V, I>); }
        SECTION("merge") { check_kernel<V, I>(cpu::spmm_merge<V, I>); }
    } else {
        SECTION("warp per row") { check_kernel<V, I>(cuda::spmm_warp_row<V, I>); }
        SECTION("merge") { check_kernel<V, I>(cuda::spmm_merge<V, I>); }
        SECTION("cusparse") { check_kernel<V, I>(cuda::spmm_cusparse<V, I>); }
    }
    SECTION("tiled ell, small buffer, factor 4") {
        check_kernel<V, I>(tiled_kernel<V, I>(backend, 64, 100, 4));
    }
    SECTION("tiled ell, one stage, factor 32") {
        check_kernel<V, I>(tiled_kernel<V, I>(backend, 256, 65536, 32));
    }
    SECTION("tiled ell, automatic factor") {
        check_kernel<V, I>(tiled_kernel<V, I>(backend, 128, 1000, 0));
    }
}

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("cpu kernels equal the reference", "[spmm][cpu]", std::pair,
                           ((float, std::int32_t), (double, std::int32_t),
                            (float, std::int64_t), (double, std::int64_t))) {
    check_backend<typename TestType::first_type, typename TestType::second_type>(Backend::cpu);
}

TEMPLATE_TEST_CASE("cpu kernels stream a C larger than the last-level cache", "[spmm][cpu]", float,
                   double) {
    using V = TestType;
    // Rows enough that C (K = 32, with an epilogue) spans more than twice the cache, so that
    // row split and merge take their non-temporal store path.
    constexpr size_type k = 32;
    const size_type rows = static_cast<size_type>(2 * cpu::detail::last_level_cache_bytes() /
                                                  (k * sizeof(V))) + 4099;
    const auto a = generate::banded<V, std::int32_t>(rows, 2);
    DenseMatrix<V> probe(rows, k);
    REQUIRE(cpu::detail::use_streaming_stores(probe.data(), rows, k * sizeof(V), k * sizeof(V)));
    check_against_reference<V, std::int32_t>(a, k, cpu::spmm_row_split<V, std::int32_t>,
                                             Epilogue<V>::bias_relu_cap(V(-0.1), V(2)));
    check_against_reference<V, std::int32_t>(a, k, cpu::spmm_merge<V, std::int32_t>,
                                             Epilogue<V>::none());
    // the tiled kernel's register tiles too
    check_against_reference<V, std::int32_t>(a, k, tiled_kernel<V, std::int32_t>(Backend::cpu, 256, 4096, 0),
                                             Epilogue<V>::bias_relu_cap(V(-0.1), V(2)));
}

TEMPLATE_PRODUCT_TEST_CASE("cuda kernels equal the reference", "[spmm][cuda]", std::pair,
                           ((float, std::int32_t), (double, std::int32_t),
                            (float, std::int64_t), (double, std::int64_t))) {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    check_backend<typename TestType::first_type, typename TestType::second_type>(Backend::cuda);
}

TEST_CASE("merge-based below 9.35 nonzeros per row, row split above", "[spmm]") {
    CHECK(choose_csr_algorithm(Backend::cpu, 9.3) == SpmmAlgorithm::csr_merge);
    CHECK(choose_csr_algorithm(Backend::cpu, 9.4) == SpmmAlgorithm::csr_row_split);
    CHECK(choose_csr_algorithm(Backend::cuda, 2.0) == SpmmAlgorithm::cuda_merge);
    CHECK(choose_csr_algorithm(Backend::cuda, 20.0) == SpmmAlgorithm::cuda_warp_row);
}

TEST_CASE("spmm front door handles column-major operands and reports the kernel", "[spmm]") {
    auto a = generate::random_uniform<double, std::int32_t>(200, 150, 12, 4);
    auto b = generate::random_dense<double>(150, 9, Layout::col_major, 2);
    DenseMatrix<double> expected(200, 9), got(200, 9, Layout::col_major);
    reference::spmm<double, std::int32_t>(a, b.view(), expected.view());
    CHECK(spmm<double, std::int32_t>(a, b.view(), got.view(), {}, Backend::cpu) ==
          SpmmAlgorithm::csr_row_split);
    for (size_type i = 0; i < 200; ++i)
        for (size_type j = 0; j < 9; ++j) CHECK(got(i, j) == Approx(expected(i, j)).epsilon(1e-12));
    auto t = tiled_ell_from_csr(a);
    CHECK(spmm<double, std::int32_t>(t, b.view(), got.view(), {}, Backend::cpu) ==
          SpmmAlgorithm::tiled_ell);
    CHECK(got(17, 3) == Approx(expected(17, 3)).epsilon(1e-12));
    // beta reads the caller's column-major C through the row-major copy
    const auto ep = Epilogue<double>::scaled(0.5, -2.0);
    DenseMatrix<double> c_rm(200, 9), c_cm(200, 9, Layout::col_major);
    for (size_type i = 0; i < 200; ++i)
        for (size_type j = 0; j < 9; ++j) c_rm(i, j) = c_cm(i, j) = double(i - j);
    reference::spmm<double, std::int32_t>(a, b.view(), c_rm.view(), ep);
    spmm<double, std::int32_t>(a, b.view(), c_cm.view(), ep, Backend::cpu);
    for (size_type i = 0; i < 200; ++i)
        for (size_type j = 0; j < 9; ++j) CHECK(c_cm(i, j) == Approx(c_rm(i, j)).epsilon(1e-12));
}

TEST_CASE("backend names parse and cuda without a device is an error", "[spmm]") {
    CHECK(parse_backend("auto") == Backend::automatic);
    CHECK_THROWS_WITH(parse_backend("gpu"), Catch::Contains("unknown backend 'gpu'"));
    if (!cuda::device_available()) {
        CHECK(resolve_backend(Backend::automatic) == Backend::cpu);
        CHECK_THROWS_AS(resolve_backend(Backend::cuda), BackendUnavailable);
        CHECK_THROWS_WITH(require_backend(Backend::cuda, "--backend"), Catch::Contains(": --backend cuda: "));
        CHECK_NOTHROW(require_backend(Backend::cpu));
    }
}
