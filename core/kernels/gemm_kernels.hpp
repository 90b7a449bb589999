// Dense tile GEMM, C := alpha·A·B + beta·C on column-major tiles, for the block-sparse
// products of the apps (tessel-abcd): on the host through CBLAS (core/cpu/gemm_kernels.cpp),
// on a CUDA device through cuBLAS (core/cuda/libraries/gemm_kernels.cpp; without CUDA in the build
// the cuda functions throw NotCompiled, generated in core/cuda/stubs.cpp from the list in
// core/cuda/entry_points.hpp). This header needs neither the
// BLAS nor the CUDA headers.
#pragma once

#include "core/types.hpp"

namespace tessel {

namespace cpu {

/// C := alpha·A·B + beta·C, column-major: A is m x k (leading dimension lda >= m), B k x n
/// (ldb >= k), C m x n (ldc >= m). Runs on the calling thread plus the BLAS library's own
/// threads (see BlasThreads). Throws DimensionMismatch for negative sizes, leading dimensions
/// too small or sizes beyond the 32-bit range of CBLAS.
void gemm(size_type m, size_type n, size_type k, double alpha, const double* a, size_type lda, const double* b,
          size_type ldb, double beta, double* c, size_type ldc);
void gemm(size_type m, size_type n, size_type k, float alpha, const float* a, size_type lda, const float* b,
          size_type ldb, float beta, float* c, size_type ldc);

/// The BLAS library's thread count set for the lifetime of the object, then restored: 1 inside
/// task-parallel code, so that each task's GEMM runs on the core that took it. A no-op with BLAS
/// libraries other than OpenBLAS.
class BlasThreads {
public:
    explicit BlasThreads(int threads);
    ~BlasThreads();
    BlasThreads(const BlasThreads&) = delete;
    BlasThreads& operator=(const BlasThreads&) = delete;

private:
    int previous_ = 1;
};

/// "OpenBLAS 0.3.21" or "CBLAS": which library runs cpu::gemm.
const char* blas_library();

}  // namespace cpu

namespace cuda {

/// A cuBLAS handle whose calls are enqueued on one stream (cudaStream_t passed as void*, so
/// that callers without CUDA headers can hold it); created on the current device. Move-only.
/// Throws CudaError when cuBLAS cannot start, NotCompiled without CUDA in the build.
class GemmHandle {
public:
    explicit GemmHandle(void* stream = nullptr);
    ~GemmHandle();
    GemmHandle(GemmHandle&& other) noexcept;
    GemmHandle& operator=(GemmHandle&& other) noexcept;
    GemmHandle(const GemmHandle&) = delete;
    GemmHandle& operator=(const GemmHandle&) = delete;
    /// The cublasHandle_t.
    void* native() const { return handle_; }

private:
    void* handle_ = nullptr;
};

/// C := alpha·A·B + beta·C on device pointers, column-major as cpu::gemm, enqueued on the
/// handle's stream (returns without waiting). Throws CudaError, DimensionMismatch as cpu::gemm,
/// NotCompiled without CUDA in the build.
void gemm(GemmHandle& handle, size_type m, size_type n, size_type k, double alpha, const double* a, size_type lda,
          const double* b, size_type ldb, double beta, double* c, size_type ldc);
void gemm(GemmHandle& handle, size_type m, size_type n, size_type k, float alpha, const float* a, size_type lda,
          const float* b, size_type ldb, float beta, float* c, size_type ldc);

/// C_p := alpha·A_p·B_p + beta·C_p for p < count, every problem m x n x k with the same leading
/// dimensions, in one cuBLAS call on the handle's stream (the problems run concurrently: no two
/// C_p may overlap). `a`, `b`, `c` are arrays of `count` device pointers that lie in device
/// memory themselves. Throws as gemm.
void gemm_batched(GemmHandle& handle, size_type m, size_type n, size_type k, double alpha, const double* const* a,
                  size_type lda, const double* const* b, size_type ldb, double beta, double* const* c, size_type ldc,
                  size_type count);
void gemm_batched(GemmHandle& handle, size_type m, size_type n, size_type k, float alpha, const float* const* a,
                  size_type lda, const float* const* b, size_type ldb, float beta, float* const* c, size_type ldc,
                  size_type count);

}  // namespace cuda

namespace detail {
/// The checks shared by both backends: sizes >= 0, leading dimensions large enough, all in
/// 32-bit range. Throws DimensionMismatch naming the bad size.
void check_gemm_sizes(size_type m, size_type n, size_type k, size_type lda, size_type ldb, size_type ldc);
}  // namespace detail

}  // namespace tessel
