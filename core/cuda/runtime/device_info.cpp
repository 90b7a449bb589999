// Device detection, device limits and the error strings of cuSPARSE and cuBLAS.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstdio>
#include <string>

#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_limits.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::cuda {

namespace {

// Device count, or the runtime's reason for none; clears the (non-sticky) error it leaves.
cudaError_t count_devices(int& count) {
    count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        count = 0;
    }
    return status;
}

}  // namespace

bool device_available() {
    int count = 0;
    return count_devices(count) == cudaSuccess && count > 0;
}

int device_count() {
    int count = 0;
    count_devices(count);
    return count;
}

std::int64_t device_free_memory(int device) {
    const int n = device_count();
    if (n == 0) return 0;
    TESSEL_CUDA_CHECK(cudaSetDevice(device % n));
    std::size_t free_bytes = 0, total_bytes = 0;
    TESSEL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return static_cast<std::int64_t>(free_bytes);
}

double create_context() {
    if (!device_available()) return 0;
    Timer t;
    // cudaFree(nullptr) frees nothing but needs the context: the runtime makes it here.
    if (cudaFree(nullptr) != cudaSuccess) {
        (void)cudaGetLastError();  // this thread's error state only
        return 0;
    }
    return t.seconds();
}

std::string device_description() {
    int count = 0;
    const cudaError_t status = count_devices(count);
    if (status != cudaSuccess) return "none: " + detail::cuda_status_string(status);
    if (count == 0) return "none: no CUDA device";
    cudaDeviceProp prop{};
    const cudaError_t prop_status = cudaGetDeviceProperties(&prop, 0);
    if (prop_status != cudaSuccess) {
        (void)cudaGetLastError();
        return "none: " + detail::cuda_status_string(prop_status);
    }
    char line[512];
    std::snprintf(line, sizeof line,
                  "%s (compute capability %d.%d, %d SMs, %.1f GiB, %zu KiB shared memory per "
                  "block opt-in)%s",
                  prop.name, prop.major, prop.minor, prop.multiProcessorCount,
                  double(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
                  prop.sharedMemPerBlockOptin / 1024,
                  count > 1 ? (", device 0 of " + std::to_string(count)).c_str() : "");
    return line;
}

namespace detail {

DeviceLimits current_device_limits() {
    DeviceLimits limits;
    TESSEL_CUDA_CHECK(cudaGetDevice(&limits.device));
    int value = 0;
    TESSEL_CUDA_CHECK(
        cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, limits.device));
    limits.sm_count = value;
    TESSEL_CUDA_CHECK(
        cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, limits.device));
    limits.shared_per_block_optin = value;
    TESSEL_CUDA_CHECK(
        cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlock, limits.device));
    limits.shared_per_block = value;
    TESSEL_CUDA_CHECK(
        cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerMultiprocessor, limits.device));
    limits.shared_per_multiprocessor = value;
    return limits;
}

std::string current_device_name() {
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return "the current device";
    }
    return "device " + std::to_string(device) + " (" + prop.name + ")";
}

std::string cusparse_status_string(int status) {
    const auto s = static_cast<cusparseStatus_t>(status);
    return std::string(cusparseGetErrorName(s)) + " (" + cusparseGetErrorString(s) + ")";
}

std::string cublas_status_string(int status) {
    const auto s = static_cast<cublasStatus_t>(status);
    return std::string(cublasGetStatusName(s)) + " (" + cublasGetStatusString(s) + ")";
}

}  // namespace detail

}  // namespace tessel::cuda
