// The tile GEMM C += A·B through CBLAS (OpenBLAS) for float and double, and control of
// OpenBLAS's own threads while tiles are scheduled over the cores as tasks.
#pragma once

#include <cblas.h>

#include "core/types.hpp"

namespace tessel::abcd {

/// C := C + A·B, column-major: A is m x k (leading dimension lda), B k x n (ldb), C m x n (ldc).
inline void gemm_accumulate(size_type m, size_type n, size_type k, const double* a, size_type lda,
                            const double* b, size_type ldb, double* c, size_type ldc) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0, a, static_cast<int>(lda), b, static_cast<int>(ldb), 1.0, c,
                static_cast<int>(ldc));
}
inline void gemm_accumulate(size_type m, size_type n, size_type k, const float* a, size_type lda,
                            const float* b, size_type ldb, float* c, size_type ldc) {
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b, static_cast<int>(ldb), 1.0f, c,
                static_cast<int>(ldc));
}

/// Sets OpenBLAS's thread count for the lifetime of the object (1 inside task-parallel code,
/// so that each task's GEMM runs on the core that took it), then restores it. A no-op with
/// BLAS libraries other than OpenBLAS.
class BlasThreads {
public:
    explicit BlasThreads(int threads) {
#ifdef OPENBLAS_VERSION
        previous_ = openblas_get_num_threads();
        openblas_set_num_threads(threads);
#else
        (void)threads;
#endif
    }
    ~BlasThreads() {
#ifdef OPENBLAS_VERSION
        openblas_set_num_threads(previous_);
#endif
    }
    BlasThreads(const BlasThreads&) = delete;
    BlasThreads& operator=(const BlasThreads&) = delete;

private:
    int previous_ = 1;
};

}  // namespace tessel::abcd
