// Page-locked host memory (cudaMallocHost): the staging buffers between device memory and MPI,
// so that copies run asynchronously and at full PCIe/NVLink speed; and host memory allocated
// elsewhere registered with the device (cudaHostRegister) for the same copies.
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/cuda/runtime/pinned_buffer.hpp needs a build with the CUDA backend (TESSEL_HAVE_CUDA)"
#endif

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "core/cuda/runtime/cuda_check.hpp"
#include "core/device_traffic.hpp"
#include "core/types.hpp"

namespace tessel::cuda {

/// At least `count` elements of T in pinned host memory, freed on destruction; grows on
/// reserve() and never shrinks (contents are not kept). Move-only.
template <typename T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    ~PinnedBuffer() {
        release();  // never throws from a destructor
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            capacity_ = std::exchange(other.capacity_, 0);
        }
        return *this;
    }

    /// Room for `count` elements; reallocates (dropping the contents) only when it grows.
    /// Throws CudaError.
    void reserve(size_type count) {
        if (count <= capacity_) return;
        release();
        void* p = nullptr;
        TESSEL_CUDA_CHECK(cudaMallocHost(&p, static_cast<std::size_t>(count) * sizeof(T)));
        data_ = static_cast<T*>(p);
        capacity_ = count;
        device_traffic::register_pinned(data_, std::int64_t(count) * std::int64_t(sizeof(T)));
    }
    T* data() { return data_; }
    const T* data() const { return data_; }
    size_type capacity() const { return capacity_; }

private:
    void release() {
        if (!data_) return;
        device_traffic::unregister_pinned(data_);
        cudaFreeHost(std::exchange(data_, nullptr));
        capacity_ = 0;
    }
    T* data_ = nullptr;
    size_type capacity_ = 0;
};

/// Page-locks `bytes` of host memory at `data` for every device (portable) and counts copies
/// from and to it as pinned (device_traffic). False, with no error left behind, when the
/// runtime refuses: the caller then copies through staging instead.
inline bool register_host_memory(void* data, std::size_t bytes) {
    if (cudaHostRegister(data, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        (void)cudaGetLastError();  // not sticky
        return false;
    }
    device_traffic::register_pinned(data, std::int64_t(bytes));
    return true;
}

/// Undoes register_host_memory (never throws: called before the memory is freed).
inline void unregister_host_memory(void* data) {
    device_traffic::unregister_pinned(data);
    if (cudaHostUnregister(data) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace tessel::cuda
