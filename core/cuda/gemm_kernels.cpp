// cuda::gemm through cuBLAS on a handle bound to a stream.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <utility>

#include "core/cuda/transfer.hpp"
#include "core/cuda/cuda_check.hpp"
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

}  // namespace tessel::cuda
