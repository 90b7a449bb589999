// cuda::gemm and cuda::gemm_batched through cuBLAS on a handle bound to a stream.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <limits>
#include <string>
#include <utility>

#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"

namespace tessel::cuda {

GemmHandle::GemmHandle(void* stream) {
    cublasHandle_t h = nullptr;
    TESSEL_CUBLAS_CHECK(cublasCreate(&h));
    handle_ = h;
    if (stream) TESSEL_CUBLAS_CHECK(cublasSetStream(h, static_cast<cudaStream_t>(stream)));
}

GemmHandle::~GemmHandle() {
    if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));  // never throws from a destructor
}

GemmHandle::GemmHandle(GemmHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

GemmHandle& GemmHandle::operator=(GemmHandle&& other) noexcept {
    if (this != &other) {
        if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
        handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
}

void gemm(GemmHandle& handle, size_type m, size_type n, size_type k, double alpha, const double* a, size_type lda,
          const double* b, size_type ldb, double beta, double* c, size_type ldc) {
    ::tessel::detail::check_gemm_sizes(m, n, k, lda, ldb, ldc);
    if (m == 0 || n == 0) return;
    cuda::count_library_launch();
    TESSEL_CUBLAS_CHECK(cublasDgemm(static_cast<cublasHandle_t>(handle.native()), CUBLAS_OP_N, CUBLAS_OP_N,
                                    static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha, a,
                                    static_cast<int>(lda), b, static_cast<int>(ldb), &beta, c, static_cast<int>(ldc)));
}

void gemm(GemmHandle& handle, size_type m, size_type n, size_type k, float alpha, const float* a, size_type lda,
          const float* b, size_type ldb, float beta, float* c, size_type ldc) {
    ::tessel::detail::check_gemm_sizes(m, n, k, lda, ldb, ldc);
    if (m == 0 || n == 0) return;
    cuda::count_library_launch();
    TESSEL_CUBLAS_CHECK(cublasSgemm(static_cast<cublasHandle_t>(handle.native()), CUBLAS_OP_N, CUBLAS_OP_N,
                                    static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha, a,
                                    static_cast<int>(lda), b, static_cast<int>(ldb), &beta, c, static_cast<int>(ldc)));
}

namespace {
void check_batch(size_type m, size_type n, size_type k, size_type lda, size_type ldb, size_type ldc, size_type count) {
    ::tessel::detail::check_gemm_sizes(m, n, k, lda, ldb, ldc);
    TESSEL_ENSURE_DIMS(count >= 0 && count <= std::numeric_limits<int>::max(),
                       "cuda::gemm_batched: batch count " + std::to_string(count) + " outside 0 .. 2^31 - 1");
}
}  // namespace

void gemm_batched(GemmHandle& handle, size_type m, size_type n, size_type k, double alpha, const double* const* a,
                  size_type lda, const double* const* b, size_type ldb, double beta, double* const* c, size_type ldc,
                  size_type count) {
    check_batch(m, n, k, lda, ldb, ldc, count);
    if (m == 0 || n == 0 || count == 0) return;
    cuda::count_library_launch();
    TESSEL_CUBLAS_CHECK(cublasDgemmBatched(static_cast<cublasHandle_t>(handle.native()), CUBLAS_OP_N, CUBLAS_OP_N,
                                           static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha, a,
                                           static_cast<int>(lda), b, static_cast<int>(ldb), &beta, c,
                                           static_cast<int>(ldc), static_cast<int>(count)));
}

void gemm_batched(GemmHandle& handle, size_type m, size_type n, size_type k, float alpha, const float* const* a,
                  size_type lda, const float* const* b, size_type ldb, float beta, float* const* c, size_type ldc,
                  size_type count) {
    check_batch(m, n, k, lda, ldb, ldc, count);
    if (m == 0 || n == 0 || count == 0) return;
    cuda::count_library_launch();
    TESSEL_CUBLAS_CHECK(cublasSgemmBatched(static_cast<cublasHandle_t>(handle.native()), CUBLAS_OP_N, CUBLAS_OP_N,
                                           static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha, a,
                                           static_cast<int>(lda), b, static_cast<int>(ldb), &beta, c,
                                           static_cast<int>(ldc), static_cast<int>(count)));
}

}  // namespace tessel::cuda
