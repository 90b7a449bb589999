// Device code written once for nvcc and for tessel's CUDA simulator (-DTESSEL_ENABLE_CUDA=SIM):
// the launch macro, shared memory declarations and pointers, volatile accesses. Kernels use
// these instead of <<<...>>>, __shared__ and volatile, so that both compilers take them.
#pragma once

#include <cuda_runtime.h>

#include "core/device_traffic.hpp"

#if defined(TESSEL_CUDA_SIM)
#include "core/cuda/sim/execution/launch.hpp"
#endif

namespace tessel::cuda {

#if defined(TESSEL_CUDA_SIM)

/// A pointer into the block's shared memory (checked for bounds and races by the simulator).
template <typename T>
using SharedPtr = ::tessel::sim::SharedPtr<T>;

/// reinterpret_cast for pointers into shared memory (and, below, into global memory).
template <typename U, typename T>
SharedPtr<U> pointer_cast(SharedPtr<T> p) {
    return SharedPtr<U>(reinterpret_cast<U*>(p.raw()));
}
template <typename T>
T load_volatile(SharedPtr<T> p) {
    return *p.checked(::tessel::sim::Access::atomic_read);
}
template <typename T>
void store_volatile(SharedPtr<T> p, T value) {
    *p.checked(::tessel::sim::Access::atomic_write) = value;
}

/// kernel<<<grid, block, shared_bytes, stream>>>(args...) is TESSEL_LAUNCH(grid, block,
/// shared_bytes, stream, kernel)(args...); every launch is counted (core/device_traffic.hpp).
#define TESSEL_LAUNCH(grid, block, shared_bytes, stream, ...) \
    ::tessel::device_traffic::count_launch(), \
    ::tessel::sim::kernel_launch(#__VA_ARGS__, __VA_ARGS__, grid, block, shared_bytes, stream)
/// `__shared__ T name[count]`, used through SharedPtr<T> name.
#define TESSEL_SHARED_ARRAY(T, name, count)   \
    const ::tessel::cuda::SharedPtr<T> name( \
        static_cast<T*>(::tessel::sim::static_shared_memory(sizeof(T) * (count), alignof(T))))
/// The launch's dynamic shared memory (`extern __shared__`) as SharedPtr<T> name.
#define TESSEL_DYNAMIC_SHARED(T, name) \
    const ::tessel::cuda::SharedPtr<T> name(static_cast<T*>(::tessel::sim::dynamic_shared_memory()))

#else

template <typename T>
using SharedPtr = T*;

#define TESSEL_LAUNCH(grid, block, shared_bytes, stream, ...) \
    ::tessel::device_traffic::count_launch(), __VA_ARGS__<<<grid, block, shared_bytes, stream>>>
#define TESSEL_SHARED_ARRAY(T, name, count) \
    __shared__ T name##_storage[count];     \
    T* const name = name##_storage
#define TESSEL_DYNAMIC_SHARED(T, name)                           \
    extern __shared__ __align__(16) unsigned char name##_bytes[]; \
    T* const name = reinterpret_cast<T*>(name##_bytes)

#endif

/// reinterpret_cast of a pointer, written so that shared-memory pointers take it too.
template <typename U, typename T>
__device__ __forceinline__ U* pointer_cast(T* p) {
    return reinterpret_cast<U*>(p);
}

/// A load that another thread may have changed since this one last looked (no caching).
template <typename T>
__device__ __forceinline__ T load_volatile(const T* p) {
    return *reinterpret_cast<const volatile T*>(p);
}
template <typename T>
__device__ __forceinline__ void store_volatile(T* p, T value) {
    *reinterpret_cast<volatile T*>(p) = value;
}

}  // namespace tessel::cuda
