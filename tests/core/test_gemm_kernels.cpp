// core's dense tile GEMM (core/kernels/gemm_kernels.hpp) against a naive triple loop: cpu
// (CBLAS) in double and float with leading dimensions, alpha and beta; cuda (cuBLAS) when a
// device is present, else NotCompiled or skipped.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/kernels/spmm_kernels.hpp"
#ifdef TESSEL_HAVE_CUDA
#include "core/cuda/device_spmm.hpp"
#endif

using namespace tessel;

namespace {

template <typename T>
struct Case {
    size_type m, n, k, lda, ldb, ldc;
    T alpha, beta;
    std::vector<T> a, b, c;
    Case(size_type m_, size_type n_, size_type k_, size_type pad, T alpha_, T beta_, unsigned seed)
        : m(m_), n(n_), k(k_), lda(std::max<size_type>(m_, 1) + pad), ldb(std::max<size_type>(k_, 1) + pad), ldc(std::max<size_type>(m_, 1) + pad), alpha(alpha_), beta(beta_) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> u(-1, 1);
        a.resize(static_cast<std::size_t>(lda * std::max<size_type>(k, 1)));
        b.resize(static_cast<std::size_t>(ldb * std::max<size_type>(n, 1)));
        c.resize(static_cast<std::size_t>(ldc * std::max<size_type>(n, 1)));
        for (auto* v : {&a, &b, &c})
            for (auto& x : *v) x = static_cast<T>(u(rng));
    }
    // The naive column-major loop, in double; entries of C outside m x n stay as they are.
    std::vector<T> expected() const {
        std::vector<T> r = c;
        for (size_type j = 0; j < n; ++j)
            for (size_type i = 0; i < m; ++i) {
                double s = 0;
                for (size_type p = 0; p < k; ++p) s += double(a[p * lda + i]) * double(b[j * ldb + p]);
                r[j * ldc + i] = static_cast<T>(double(alpha) * s + double(beta) * double(c[j * ldc + i]));
            }
        return r;
    }
};

template <typename T>
void check_close(const std::vector<T>& got, const std::vector<T>& want, double tol) {
    REQUIRE(got.size() == want.size());
    for (std::size_t x = 0; x < got.size(); ++x) REQUIRE(double(got[x]) == Approx(double(want[x])).margin(tol));
}

template <typename T>
void cpu_cases(double tol) {
    unsigned seed = 1;
    for (auto [m, n, k] : {std::tuple{1, 1, 1}, {7, 5, 3}, {49, 64, 33}, {130, 17, 200}, {5, 0, 4}, {6, 3, 0}})
        for (size_type pad : {0, 3})
            for (auto [alpha, beta] : {std::pair{T(1), T(1)}, {T(0.5), T(0)}, {T(-2), T(0.25)}}) {
                Case<T> c(m, n, k, pad, alpha, beta, seed++);
                const auto want = c.expected();
                cpu::gemm(c.m, c.n, c.k, c.alpha, c.a.data(), c.lda, c.b.data(), c.ldb, c.beta, c.c.data(), c.ldc);
                check_close(c.c, want, tol);
            }
}

}  // namespace

TEST_CASE("cpu::gemm equals the naive loop", "[gemm]") {
    cpu_cases<double>(1e-12);
    cpu_cases<float>(1e-4);
    cpu::BlasThreads one(1);  // the executor's setting: same answer on one BLAS thread
    cpu_cases<double>(1e-12);
}

TEST_CASE("cpu::gemm refuses sizes it cannot pass to CBLAS", "[gemm]") {
    std::vector<double> x(16, 0.0);
    CHECK_THROWS_AS(cpu::gemm(-1, 2, 2, 1.0, x.data(), 2, x.data(), 2, 0.0, x.data(), 2), DimensionMismatch);
    CHECK_THROWS_WITH(cpu::gemm(4, 2, 2, 1.0, x.data(), 2, x.data(), 2, 0.0, x.data(), 4),
                      Catch::Contains("gemm: leading dimensions 2, 2, 4 are too small for m = 4, k = 2"));
    CHECK_THROWS_WITH(cpu::gemm(size_type(1) << 31, 1, 1, 1.0, x.data(), size_type(1) << 31, x.data(), 1, 0.0, x.data(),
                                size_type(1) << 31),
                      Catch::Contains("gemm: m = 2147483648 is outside [0, 2^31)"));
}

TEST_CASE("cuda::gemm equals the naive loop", "[gemm][cuda]") {
#ifdef TESSEL_HAVE_CUDA
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    unsigned seed = 100;
    for (auto [m, n, k] : {std::tuple{1, 1, 1}, {49, 64, 33}, {130, 17, 200}})
        for (size_type pad : {0, 5}) {
            Case<double> c(m, n, k, pad, 1.5, 0.5, seed++);
            const auto want = c.expected();
            cuda::DeviceBuffer<double> a(c.a.data(), static_cast<size_type>(c.a.size()));
            cuda::DeviceBuffer<double> b(c.b.data(), static_cast<size_type>(c.b.size()));
            cuda::DeviceBuffer<double> d(c.c.data(), static_cast<size_type>(c.c.size()));
            cuda::GemmHandle h;
            cuda::gemm(h, c.m, c.n, c.k, c.alpha, a.data(), c.lda, b.data(), c.ldb, c.beta, d.data(), c.ldc);
            d.download(c.c.data(), static_cast<size_type>(c.c.size()));
            check_close(c.c, want, 1e-12);
        }
#else
    CHECK_THROWS_AS(cuda::GemmHandle(), NotCompiled);
    WARN("skipped: this build has no CUDA (cuda::GemmHandle throws NotCompiled, checked)");
#endif
}
