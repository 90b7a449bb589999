// cpu::gemm through CBLAS (OpenBLAS on Debian), and OpenBLAS's thread count.
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <string>

#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"

namespace tessel {

namespace detail {
void check_gemm_sizes(size_type m, size_type n, size_type k, size_type lda, size_type ldb, size_type ldc) {
    auto size = [](size_type v, const char* name) {
        TESSEL_ENSURE_DIMS(v >= 0 && v <= INT_MAX, std::string("gemm: ") + name + " = " + std::to_string(v) +
                                                       " is outside [0, 2^31)");
    };
    size(m, "m");
    size(n, "n");
    size(k, "k");
    size(lda, "lda");
    size(ldb, "ldb");
    size(ldc, "ldc");
    TESSEL_ENSURE_DIMS(lda >= std::max<size_type>(1, m) && ldb >= std::max<size_type>(1, k) &&
                           ldc >= std::max<size_type>(1, m),
                       "gemm: leading dimensions " + std::to_string(lda) + ", " + std::to_string(ldb) + ", " +
                           std::to_string(ldc) + " are too small for m = " + std::to_string(m) + ", k = " +
                           std::to_string(k));
}
}  // namespace detail

namespace cpu {

void gemm(size_type m, size_type n, size_type k, double alpha, const double* a, size_type lda, const double* b,
          size_type ldb, double beta, double* c, size_type ldc) {
    detail::check_gemm_sizes(m, n, k, lda, ldb, ldc);
    if (m == 0 || n == 0) return;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
}

void gemm(size_type m, size_type n, size_type k, float alpha, const float* a, size_type lda, const float* b,
          size_type ldb, float beta, float* c, size_type ldc) {
    detail::check_gemm_sizes(m, n, k, lda, ldb, ldc);
    if (m == 0 || n == 0) return;
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
}

BlasThreads::BlasThreads(int threads) {
#ifdef OPENBLAS_VERSION
    previous_ = openblas_get_num_threads();
    openblas_set_num_threads(threads);
#else
    (void)threads;
#endif
}

BlasThreads::~BlasThreads() {
#ifdef OPENBLAS_VERSION
    openblas_set_num_threads(previous_);
#endif
}

const char* blas_library() {
#ifdef OPENBLAS_VERSION
    return OPENBLAS_VERSION;
#else
    return "CBLAS";
#endif
}

}  // namespace cpu
}  // namespace tessel
