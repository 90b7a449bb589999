// Counted host-device copies and host waits: every copy between host and device memory and every
// synchronisation of tessel's CUDA code goes through these, so that core/device_traffic.hpp sees
// the whole data path (on the simulator as on a GPU). Failures throw tessel::CudaError.
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/cuda/runtime/transfer.hpp needs a build with the CUDA backend (TESSEL_HAVE_CUDA)"
#endif

#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/cuda/runtime/cuda_check.hpp"
#include "core/device_traffic.hpp"

namespace tessel::cuda {

/// device[0 .. bytes) := host[0 .. bytes), ordered on `stream` (pageable host memory may be
/// reused on return; pinned memory must live until the stream reaches the copy).
inline void copy_to_device(void* device, const void* host, std::size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return;
    TESSEL_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
    device_traffic::count_copy(device_traffic::Direction::host_to_device, std::int64_t(bytes), host);
}

/// host[0 .. bytes) := device[0 .. bytes), ordered on `stream`; the host waits only where it
/// synchronises (copy_to_host_and_wait, synchronize_stream).
inline void copy_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return;
    TESSEL_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
    device_traffic::count_copy(device_traffic::Direction::device_to_host, std::int64_t(bytes), host);
}

/// `height` rows of `width` bytes between pitched host and device memory, ordered on `stream`.
inline void copy_2d_to_device(void* device, std::size_t device_pitch, const void* host, std::size_t host_pitch,
                              std::size_t width, std::size_t height, cudaStream_t stream) {
    if (width == 0 || height == 0) return;
    TESSEL_CUDA_CHECK(cudaMemcpy2DAsync(device, device_pitch, host, host_pitch, width, height,
                                        cudaMemcpyHostToDevice, stream));
    device_traffic::count_copy(device_traffic::Direction::host_to_device, std::int64_t(width * height), host);
}
inline void copy_2d_to_host(void* host, std::size_t host_pitch, const void* device, std::size_t device_pitch,
                            std::size_t width, std::size_t height, cudaStream_t stream) {
    if (width == 0 || height == 0) return;
    TESSEL_CUDA_CHECK(cudaMemcpy2DAsync(host, host_pitch, device, device_pitch, width, height,
                                        cudaMemcpyDeviceToHost, stream));
    device_traffic::count_copy(device_traffic::Direction::device_to_host, std::int64_t(width * height), host);
}

/// The host waits for the work enqueued on `stream` so far.
inline void synchronize_stream(cudaStream_t stream) {
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream));
    device_traffic::count_synchronization();
}
/// The host waits for `event`.
inline void synchronize_event(cudaEvent_t event) {
    TESSEL_CUDA_CHECK(cudaEventSynchronize(event));
    device_traffic::count_synchronization();
}
/// The host waits for all work on the device.
inline void synchronize_device() {
    TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
    device_traffic::count_synchronization();
}

/// A library call (cuBLAS, cuSPARSE) that launches device work: counted like a kernel.
inline void count_library_launch(std::int64_t n = 1) { device_traffic::count_launch(n); }

}  // namespace tessel::cuda
