// Error checks for CUDA runtime, cuSPARSE and cuBLAS calls: a failed call throws CudaError.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/error.hpp"

namespace tessel::cuda::detail {

/// "cudaErrorX (description)" for a runtime status.
inline std::string cuda_status_string(cudaError_t status) {
    std::string s = std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
#if defined(TESSEL_CUDA_SIM)
    // The simulator says what the device code did wrong, and where.
    const std::string detail = ::tessel::sim::last_error_detail();
    if (!detail.empty()) s += ": simulator: " + detail;
#endif
    return s;
}

/// Name and description of a cuSPARSE / cuBLAS status (core/cuda/runtime/device_info.cpp), taken as
/// int so that this header needs neither library's header.
std::string cusparse_status_string(int status);
std::string cublas_status_string(int status);

[[noreturn]] inline void throw_cuda_error(const char* file, int line, const char* call,
                                          cudaError_t status) {
    throw CudaError(file, line, std::string(call) + " failed: " + cuda_status_string(status));
}
[[noreturn]] inline void throw_cusparse_error(const char* file, int line, const char* call,
                                              int status) {
    throw CudaError(file, line, std::string(call) + " failed: " + cusparse_status_string(status));
}
[[noreturn]] inline void throw_cublas_error(const char* file, int line, const char* call,
                                            int status) {
    throw CudaError(file, line, std::string(call) + " failed: " + cublas_status_string(status));
}

}  // namespace tessel::cuda::detail

/// Throws tessel::CudaError (file:line, the call, the error name and string) unless the CUDA
/// runtime call returns cudaSuccess.
#define TESSEL_CUDA_CHECK(call)                                                          \
    do {                                                                                 \
        const cudaError_t tessel_status_ = (call);                                       \
        if (tessel_status_ != cudaSuccess)                                               \
            ::tessel::cuda::detail::throw_cuda_error(__FILE__, __LINE__, #call,          \
                                                     tessel_status_);                    \
    } while (0)

/// Throws tessel::CudaError unless the cuSPARSE call returns CUSPARSE_STATUS_SUCCESS (0).
#define TESSEL_CUSPARSE_CHECK(call)                                                      \
    do {                                                                                 \
        const int tessel_status_ = static_cast<int>(call);                               \
        if (tessel_status_ != 0)                                                         \
            ::tessel::cuda::detail::throw_cusparse_error(__FILE__, __LINE__, #call,      \
                                                         tessel_status_);                \
    } while (0)

/// Throws tessel::CudaError unless the cuBLAS call returns CUBLAS_STATUS_SUCCESS (0).
#define TESSEL_CUBLAS_CHECK(call)                                                        \
    do {                                                                                 \
        const int tessel_status_ = static_cast<int>(call);                               \
        if (tessel_status_ != 0)                                                         \
            ::tessel::cuda::detail::throw_cublas_error(__FILE__, __LINE__, #call,        \
                                                       tessel_status_);                  \
    } while (0)

/// Checks the launch of the kernel just issued (bad configuration, too much shared memory).
#define TESSEL_CUDA_CHECK_LAUNCH() TESSEL_CUDA_CHECK(cudaGetLastError())
