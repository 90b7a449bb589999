// The runtime API of the simulated device: devices, memory, copies and memsets, each checked as
// the real runtime checks it (and stricter: a copy past an allocation's end is refused).
#include <cstring>
#include <functional>
#include <memory>
#include <vector>
#include <string>

#include "core/cuda/sim/memory/device_memory.hpp"
#include "core/cuda/sim/runtime/device_profile.hpp"
#include "core/cuda/sim/runtime/fault.hpp"
#include "core/cuda/sim/runtime/streams.hpp"

using tessel::sim::fail;
using tessel::sim::MemoryKind;

namespace {

int current_device = 0;

const char* kind_name(MemoryKind k) {
    return k == MemoryKind::device ? "device memory" : k == MemoryKind::pinned ? "pinned host memory" : "host memory";
}

// The kind of p .. p+bytes, or an error naming `call` and `which` operand (also for device
// memory whose stream-ordered free has been asked for).
cudaError_t classify(const void* p, std::size_t bytes, const char* call, const char* which, MemoryKind& kind) {
    std::string problem = tessel::sim::stream_order_problem(p, false);
    if (!problem.empty()) return fail(cudaErrorIllegalAddress, std::string(call) + ": the " + which + " (" + problem + ")");
    kind = tessel::sim::memory_kind(p, bytes, problem);
    if (!problem.empty()) return fail(cudaErrorInvalidValue, std::string(call) + ": the " + which + " (" + problem + ")");
    return cudaSuccess;
}

// Queued work that touches `pointers` when it runs: refused (an asynchronous fault, as a GPU
// would fault) when one is not ordered after its allocation or lies past its free.
std::function<void()> ordered_work(const char* call, std::vector<const void*> pointers, std::function<void()> work) {
    return [call, pointers = std::move(pointers), work = std::move(work)] {
        for (const void* p : pointers)
            if (const std::string why = tessel::sim::stream_order_problem(p, true); !why.empty()) {
                fail(cudaErrorIllegalAddress, std::string(call) + ": " + why);
                tessel::sim::set_async_error(cudaErrorIllegalAddress);
                return;
            }
        work();
    };
}

bool device_side(MemoryKind k) { return k == MemoryKind::device; }

// Checks that dst and src are what `kind` says they are.
cudaError_t check_copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* call) {
    if (bytes == 0) return cudaSuccess;
    if (dst == nullptr || src == nullptr) return fail(cudaErrorInvalidValue, std::string(call) + ": null pointer");
    MemoryKind d, s;
    if (classify(dst, bytes, call, "destination", d) != cudaSuccess) return cudaErrorInvalidValue;
    if (classify(src, bytes, call, "source", s) != cudaSuccess) return cudaErrorInvalidValue;
    bool want_dst_device = false, want_src_device = false;
    switch (kind) {
    case cudaMemcpyHostToHost: break;
    case cudaMemcpyHostToDevice: want_dst_device = true; break;
    case cudaMemcpyDeviceToHost: want_src_device = true; break;
    case cudaMemcpyDeviceToDevice: want_dst_device = want_src_device = true; break;
    case cudaMemcpyDefault: return cudaSuccess;
    default: return fail(cudaErrorInvalidMemcpyDirection, std::string(call) + ": unknown copy kind");
    }
    if (device_side(d) != want_dst_device || device_side(s) != want_src_device)
        return fail(cudaErrorInvalidValue, std::string(call) + ": the destination is " + kind_name(d) +
                                               " and the source " + kind_name(s) +
                                               ", which the copy kind does not allow");
    return cudaSuccess;
}

cudaError_t check_stream(cudaStream_t stream, const char* call) {
    if (!tessel::sim::valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle, std::string(call) + ": not a live stream");
    return cudaSuccess;
}

cudaError_t check_device_range(void* p, std::size_t bytes, const char* call) {
    if (bytes == 0) return cudaSuccess;
    MemoryKind k;
    if (classify(p, bytes, call, "destination", k) != cudaSuccess) return cudaErrorInvalidValue;
    if (k != MemoryKind::device)
        return fail(cudaErrorInvalidValue, std::string(call) + ": the destination is " + kind_name(k));
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaGetDeviceCount(int* count) {
    if (count == nullptr) return fail(cudaErrorInvalidValue, "cudaGetDeviceCount: null pointer");
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
    if (device == nullptr) return fail(cudaErrorInvalidValue, "cudaGetDevice: null pointer");
    *device = current_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    if (device != 0) return fail(cudaErrorInvalidDevice, "cudaSetDevice(" + std::to_string(device) + "): the simulator has one device");
    current_device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    namespace h = tessel::sim::h100;
    if (prop == nullptr) return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties: null pointer");
    if (device != 0) return fail(cudaErrorInvalidDevice, "cudaGetDeviceProperties: no device " + std::to_string(device));
    *prop = cudaDeviceProp{};
    std::strncpy(prop->name, "tessel CUDA simulator (H100 limits)", sizeof prop->name - 1);
    prop->totalGlobalMem = tessel::sim::device_memory_total();
    prop->sharedMemPerBlock = h::shared_per_block;
    prop->sharedMemPerBlockOptin = h::shared_per_block_optin;
    prop->sharedMemPerMultiprocessor = h::shared_per_multiprocessor;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = h::max_threads_per_block;
    for (int i = 0; i < 3; ++i) {
        prop->maxThreadsDim[i] = int(h::max_block_dim[i]);
        prop->maxGridSize[i] = int(h::max_grid_dim[i]);
    }
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = h::sm_count;
    prop->maxThreadsPerMultiProcessor = h::max_threads_per_sm;
    prop->unifiedAddressing = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    cudaDeviceProp p;
    if (value == nullptr) return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: null pointer");
    if (const cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return e;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.sharedMemPerMultiprocessor); break;
    default: return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: attribute not simulated");
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceReset() {
    tessel::sim::drain_all();
    (void)tessel::sim::take_async_error();
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
    if (free == nullptr || total == nullptr) return fail(cudaErrorInvalidValue, "cudaMemGetInfo: null pointer");
    *total = tessel::sim::device_memory_total();
    *free = *total - tessel::sim::device_memory_used();
    return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
    if (ptr == nullptr) return fail(cudaErrorInvalidValue, "cudaMalloc: null pointer");
    *ptr = tessel::sim::allocate(bytes, MemoryKind::device);
    if (*ptr == nullptr)
        return fail(cudaErrorMemoryAllocation, "cudaMalloc(" + std::to_string(bytes) + " bytes): the simulated device has " +
                                                   std::to_string(tessel::sim::device_memory_total() - tessel::sim::device_memory_used()) +
                                                   " bytes free");
    return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
    if (ptr == nullptr) return cudaSuccess;
    tessel::sim::drain_all();  // cudaFree waits for the device, so queued work still has its memory
    if (!tessel::sim::release(ptr, MemoryKind::device))
        return fail(cudaErrorInvalidValue, "cudaFree: not the start of a live device allocation");
    return cudaSuccess;
}

// Stream-ordered memory: the allocation is usable by work ordered after the point where its
// stream reaches it, and freed where its stream reaches the free; work that runs outside that
// window fails with cudaErrorIllegalAddress, and a call enqueued after cudaFreeAsync is refused.
cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t stream) {
    if (const cudaError_t e = check_stream(stream, "cudaMallocAsync"); e != cudaSuccess) return e;
    if (ptr == nullptr) return fail(cudaErrorInvalidValue, "cudaMallocAsync: null pointer");
    *ptr = tessel::sim::allocate(bytes, MemoryKind::device, false);
    if (*ptr == nullptr)
        return fail(cudaErrorMemoryAllocation, "cudaMallocAsync(" + std::to_string(bytes) +
                                                   " bytes): the simulated device has " +
                                                   std::to_string(tessel::sim::device_memory_total() -
                                                                  tessel::sim::device_memory_used()) +
                                                   " bytes free");
    tessel::sim::enqueue(stream, [p = *ptr] { tessel::sim::mark_ordered(p); });
    return cudaSuccess;
}

cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
    if (const cudaError_t e = check_stream(stream, "cudaFreeAsync"); e != cudaSuccess) return e;
    if (ptr == nullptr) return cudaSuccess;
    if (!tessel::sim::request_free(ptr))
        return fail(cudaErrorInvalidValue, "cudaFreeAsync: not the start of a live device allocation (or freed twice)");
    // Freed in stream order: work queued before it still has the memory.
    tessel::sim::enqueue(stream, [ptr] { tessel::sim::release_ordered(ptr); });
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
    if (ptr == nullptr) return fail(cudaErrorInvalidValue, "cudaMallocHost: null pointer");
    *ptr = tessel::sim::allocate(bytes, MemoryKind::pinned);
    return *ptr ? cudaSuccess : fail(cudaErrorMemoryAllocation, "cudaMallocHost: out of host memory");
}

cudaError_t cudaFreeHost(void* ptr) {
    if (ptr == nullptr) return cudaSuccess;
    tessel::sim::drain_all();  // queued copies may still read or write it
    if (!tessel::sim::release(ptr, MemoryKind::pinned))
        return fail(cudaErrorInvalidValue, "cudaFreeHost: not the start of a live pinned allocation");
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void* ptr, std::size_t bytes, unsigned int /*flags*/) {
    if (ptr == nullptr || bytes == 0) return fail(cudaErrorInvalidValue, "cudaHostRegister: null pointer or no bytes");
    if (!tessel::sim::register_host(ptr, bytes))
        return fail(cudaErrorHostMemoryAlreadyRegistered, "cudaHostRegister: the range overlaps pinned, registered or device memory");
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
    tessel::sim::drain_all();  // queued copies may still read or write it
    if (!tessel::sim::unregister_host(ptr))
        return fail(cudaErrorHostMemoryNotRegistered, "cudaHostUnregister: not the start of a registered range");
    return cudaSuccess;
}

namespace {

// The work of an asynchronous copy, queued on `stream`: pageable sources are copied now (the
// call may return before the copy, but the caller may reuse its buffer at once); a pageable
// destination makes the call wait for the copy, as the real runtime does.
cudaError_t queue_copy(cudaStream_t stream, void* dst, MemoryKind dst_kind, MemoryKind src_kind, const void* src,
                       std::size_t src_span, std::function<void(const void*)> copy) {
    if (src_kind == MemoryKind::host) {
        auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                                   static_cast<const unsigned char*>(src) + src_span);
        tessel::sim::enqueue(stream, ordered_work("a copy", {dst}, [staged, copy] { copy(staged->data()); }));
    } else {
        tessel::sim::enqueue(stream, ordered_work("a copy", {dst, src}, [src, copy] { copy(src); }));
    }
    if (dst_kind == MemoryKind::host) {
        tessel::sim::drain(stream);
        return tessel::sim::synchronized_status();
    }
    return cudaSuccess;
}

cudaError_t copy_kinds(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* call,
                       MemoryKind& d, MemoryKind& s) {
    if (const cudaError_t e = check_copy(dst, src, bytes, kind, call); e != cudaSuccess) return e;
    std::string unused;
    d = tessel::sim::memory_kind(dst, 1, unused);
    s = tessel::sim::memory_kind(src, 1, unused);
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
    if (const cudaError_t e = check_stream(stream, "cudaMemcpyAsync"); e != cudaSuccess) return e;
    MemoryKind d, s;
    if (const cudaError_t e = copy_kinds(dst, src, bytes, kind, "cudaMemcpyAsync", d, s); e != cudaSuccess) return e;
    if (bytes == 0) return cudaSuccess;
    return queue_copy(stream, dst, d, s, src, bytes, [dst, bytes](const void* from) { std::memmove(dst, from, bytes); });
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    if (const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, nullptr); e != cudaSuccess) return e;
    tessel::sim::drain(nullptr);  // a blocking copy on the legacy stream
    return tessel::sim::synchronized_status();
}

cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
    if (const cudaError_t e = check_stream(stream, "cudaMemcpy2DAsync"); e != cudaSuccess) return e;
    if (width > dpitch || width > spitch)
        return fail(cudaErrorInvalidValue, "cudaMemcpy2DAsync: width " + std::to_string(width) + " above a pitch");
    if (height == 0 || width == 0) return cudaSuccess;
    const std::size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
    MemoryKind d, s, k;
    if (const cudaError_t e = copy_kinds(dst, src, std::min(dspan, sspan), kind, "cudaMemcpy2DAsync", d, s);
        e != cudaSuccess)
        return e;
    if (classify(dst, dspan, "cudaMemcpy2DAsync", "destination", k) != cudaSuccess ||
        classify(src, sspan, "cudaMemcpy2DAsync", "source", k) != cudaSuccess)
        return cudaErrorInvalidValue;
    return queue_copy(stream, dst, d, s, src, sspan, [=](const void* from) {
        for (std::size_t r = 0; r < height; ++r)
            std::memmove(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(from) + r * spitch, width);
    });
}

cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t stream) {
    if (const cudaError_t e = check_stream(stream, "cudaMemsetAsync"); e != cudaSuccess) return e;
    if (const cudaError_t e = check_device_range(ptr, bytes, "cudaMemsetAsync"); e != cudaSuccess) return e;
    if (bytes > 0) tessel::sim::enqueue(stream, ordered_work("a memset", {ptr}, [=] { std::memset(ptr, value, bytes); }));
    return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes) {
    if (const cudaError_t e = cudaMemsetAsync(ptr, value, bytes, nullptr); e != cudaSuccess) return e;
    tessel::sim::drain(nullptr);
    return tessel::sim::synchronized_status();
}

cudaError_t cudaMemset2DAsync(void* ptr, std::size_t pitch, int value, std::size_t width, std::size_t height,
                              cudaStream_t stream) {
    if (const cudaError_t e = check_stream(stream, "cudaMemset2DAsync"); e != cudaSuccess) return e;
    if (width > pitch) return fail(cudaErrorInvalidValue, "cudaMemset2DAsync: width above the pitch");
    if (height == 0 || width == 0) return cudaSuccess;
    if (const cudaError_t e = check_device_range(ptr, pitch * (height - 1) + width, "cudaMemset2DAsync"); e != cudaSuccess)
        return e;
    tessel::sim::enqueue(stream, ordered_work("a memset", {ptr}, [=] {
        for (std::size_t r = 0; r < height; ++r) std::memset(static_cast<char*>(ptr) + r * pitch, value, width);
    }));
    return cudaSuccess;
}
