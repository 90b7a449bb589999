// Kernels for the simulator's own tests (tests/cuda_sim/test_cuda_sim.cpp).
#include "tests/cuda_sim/sim_kernels.cuh"

#include <atomic>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"

namespace tessel::sim_test {

namespace {

__global__ void reverse_kernel(const float* in, float* out, int n, bool with_barrier) {
    TESSEL_DYNAMIC_SHARED(float, buf);
    const int t = threadIdx.x;
    if (t < n) buf[t] = in[t];
    if (with_barrier) __syncthreads();
    if (t < n) out[t] = buf[n - 1 - t];
}

__global__ void warp_sum_kernel(int* sums) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int v = lane + warp;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) sums[warp] = v;
}

__global__ void vote_kernel(unsigned* ballot, int* any, int* all) {
    const int lane = threadIdx.x;
    const unsigned b = __ballot_sync(0xffffffffu, lane % 3 == 0);
    const int a = __any_sync(0xffffffffu, lane == 31);
    const int l = __all_sync(0xffffffffu, lane < 32);
    if (lane == 0) {
        *ballot = b;
        *any = a;
        *all = l;
    }
}

// Lane l holds l - 10 (signed) and l * 37 % 29 (unsigned); the lanes below 16 also reduce
// among themselves; match groups the lanes by l % 5.
__global__ void reduce_kernel(int* out) {
    const int lane = threadIdx.x;
    const int v = lane - 10;
    const unsigned u = unsigned(lane * 37 % 29);
    int r[10] = {__reduce_add_sync(0xffffffffu, v), __reduce_min_sync(0xffffffffu, v),
                 __reduce_max_sync(0xffffffffu, v),
                 int(__reduce_min_sync(0xffffffffu, u)), int(__reduce_max_sync(0xffffffffu, u)),
                 int(__reduce_and_sync(0xffffffffu, u | 0x100u)), int(__reduce_or_sync(0xffffffffu, u)),
                 int(__reduce_xor_sync(0xffffffffu, u)), 0, int(__match_any_sync(0xffffffffu, lane % 5))};
    if (lane < 16) r[8] = __reduce_add_sync(0x0000ffffu, v);
    for (int i = 0; i < 10; ++i) out[lane * 10 + i] = r[i];
}

__global__ void exited_lanes_kernel(int* out) {
    if (threadIdx.x >= 16) return;
    out[threadIdx.x] = __shfl_sync(0xffffffffu, int(threadIdx.x), 0);
}

__global__ void deadlock_kernel(int* out) {
    if (threadIdx.x < 16) {
        __syncthreads();
    } else {
        out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 0);
    }
}

__global__ void out_of_bounds_kernel(float* out) {
    TESSEL_DYNAMIC_SHARED(float, buf);
    buf[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = buf[64];
}

__global__ void atomic_count_kernel(int* out) {
    TESSEL_SHARED_ARRAY(int, count, 1);
    if (threadIdx.x == 0) count[0] = 0;
    __syncthreads();
    atomicAdd(count + 0, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = count[0];
}

__global__ void touch_kernel(float* p) {
    if (threadIdx.x == 0) p[0] = 1.0f;
}

__global__ void arrival_kernel(int* order, int* next) {
    order[atomicAdd(next, 1)] = int(threadIdx.x);
    __syncthreads();
}

__global__ void fill_kernel(float* p, float value, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = value;
}

__global__ void copy_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// A launch's status: a bad launch at once, else what the grid did once it has run.
cudaError_t launch_status() {
    const cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess) return launched;
    const cudaError_t ran = cudaDeviceSynchronize();
    (void)cudaGetLastError();  // a failed call is also the last error: leave none behind
    return ran;
}

}  // namespace

cudaError_t reverse_in_block(const std::vector<float>& in, std::vector<float>& out, bool with_barrier) {
    const int n = int(in.size());
    cuda::DeviceBuffer<float> d_in(in.data(), n), d_out(n);
    TESSEL_LAUNCH(1, unsigned(n), n * sizeof(float), nullptr, reverse_kernel)(d_in.data(), d_out.data(), n, with_barrier);
    const cudaError_t status = launch_status();
    out.resize(in.size());
    d_out.download(out.data(), n);
    return status;
}

cudaError_t warp_sums(int warps, std::vector<int>& sums) {
    cuda::DeviceBuffer<int> d(warps);
    TESSEL_LAUNCH(1, unsigned(32 * warps), 0, nullptr, warp_sum_kernel)(d.data());
    const cudaError_t status = launch_status();
    sums.resize(std::size_t(warps));
    d.download(sums.data(), warps);
    return status;
}

cudaError_t warp_votes(unsigned& ballot, int& any, int& all) {
    cuda::DeviceBuffer<unsigned> b(1);
    cuda::DeviceBuffer<int> a(1), l(1);
    TESSEL_LAUNCH(1, 32, 0, nullptr, vote_kernel)(b.data(), a.data(), l.data());
    const cudaError_t status = launch_status();
    b.download(&ballot, 1);
    a.download(&any, 1);
    l.download(&all, 1);
    return status;
}

cudaError_t warp_reductions(std::vector<int>& out) {
    cuda::DeviceBuffer<int> d(320);
    TESSEL_LAUNCH(1, 32, 0, nullptr, reduce_kernel)(d.data());
    const cudaError_t status = launch_status();
    out.resize(320);
    d.download(out.data(), 320);
    return status;
}

cudaError_t shuffle_with_exited_lanes() {
    cuda::DeviceBuffer<int> d(32);
    TESSEL_LAUNCH(1, 32, 0, nullptr, exited_lanes_kernel)(d.data());
    return launch_status();
}

cudaError_t barrier_deadlock() {
    cuda::DeviceBuffer<int> d(32);
    TESSEL_LAUNCH(1, 32, 0, nullptr, deadlock_kernel)(d.data());
    return launch_status();
}

cudaError_t shared_out_of_bounds() {
    cuda::DeviceBuffer<float> d(1);
    TESSEL_LAUNCH(1, 64, 64 * sizeof(float), nullptr, out_of_bounds_kernel)(d.data());
    return launch_status();
}

cudaError_t shared_atomic_count(int threads, int& count) {
    cuda::DeviceBuffer<int> d(1);
    TESSEL_LAUNCH(1, unsigned(threads), 0, nullptr, atomic_count_kernel)(d.data());
    const cudaError_t status = launch_status();
    d.download(&count, 1);
    return status;
}

cudaError_t launch_with(unsigned threads, std::size_t shared, int optin) {
    cuda::DeviceBuffer<float> d(1);
    if (optin > 0) {
        const cudaError_t s = cudaFuncSetAttribute(touch_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
        if (s != cudaSuccess) return s;
    }
    TESSEL_LAUNCH(1, threads, shared, nullptr, touch_kernel)(d.data());
    const cudaError_t status = launch_status();
    if (optin > 0) cudaFuncSetAttribute(touch_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);
    return status;
}

cudaError_t write_through(float* p) {
    TESSEL_LAUNCH(1, 32, 0, nullptr, touch_kernel)(p);
    return launch_status();
}

std::vector<int> first_arrival_order(int threads) {
    cuda::DeviceBuffer<int> order(threads), next(1);
    next.fill_zero();
    TESSEL_LAUNCH(1, unsigned(threads), 0, nullptr, arrival_kernel)(order.data(), next.data());
    std::vector<int> out(std::size_t(threads), 0);
    order.download(out.data(), threads);
    return out;
}

float read_before_and_after_sync(float& before) {
    cudaStream_t s = nullptr;
    TESSEL_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cuda::DeviceBuffer<float> d(256);
    cuda::PinnedBuffer<float> host;
    host.reserve(1);
    host.data()[0] = -1.0f;
    TESSEL_LAUNCH(1, 256, 0, s, fill_kernel)(d.data(), 5.0f, 256);
    TESSEL_CUDA_CHECK(cudaMemcpyAsync(host.data(), d.data(), sizeof(float), cudaMemcpyDeviceToHost, s));
    before = host.data()[0];  // no wait yet: the copy need not have happened
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(s));
    const float after = host.data()[0];
    TESSEL_CUDA_CHECK(cudaStreamDestroy(s));
    return after;
}

float across_streams(bool wait_for_event) {
    cudaStream_t producer = nullptr, consumer = nullptr;
    cudaEvent_t written = nullptr;
    TESSEL_CUDA_CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
    TESSEL_CUDA_CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
    TESSEL_CUDA_CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
    cuda::DeviceBuffer<float> x(64), y(64);
    TESSEL_LAUNCH(1, 64, 0, producer, fill_kernel)(x.data(), 3.0f, 64);
    TESSEL_CUDA_CHECK(cudaEventRecord(written, producer));
    if (wait_for_event) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(consumer, written, 0));
    TESSEL_LAUNCH(1, 64, 0, consumer, copy_kernel)(x.data(), y.data(), 64);
    float got = 0;
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(consumer));
    TESSEL_CUDA_CHECK(cudaMemcpy(&got, y.data() + 63, sizeof(float), cudaMemcpyDeviceToHost));
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(producer));
    TESSEL_CUDA_CHECK(cudaEventDestroy(written));
    TESSEL_CUDA_CHECK(cudaStreamDestroy(producer));
    TESSEL_CUDA_CHECK(cudaStreamDestroy(consumer));
    return got;
}

namespace {

// Two non-blocking streams and an event, destroyed with it.
struct TwoStreams {
    cudaStream_t owner = nullptr, user = nullptr;
    cudaEvent_t event = nullptr;
    TwoStreams() {
        TESSEL_CUDA_CHECK(cudaStreamCreateWithFlags(&owner, cudaStreamNonBlocking));
        TESSEL_CUDA_CHECK(cudaStreamCreateWithFlags(&user, cudaStreamNonBlocking));
        TESSEL_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    }
    ~TwoStreams() {
        cudaStreamSynchronize(owner);
        cudaStreamSynchronize(user);
        cudaEventDestroy(event);
        cudaStreamDestroy(owner);
        cudaStreamDestroy(user);
        (void)cudaGetLastError();
    }
};

}  // namespace

cudaError_t fill_async_allocation(bool ordered, float& value) {
    TwoStreams s;
    cudaError_t status = cudaSuccess;
    {
        cuda::DeviceBuffer<float> buffer(64, s.owner);  // freed on s.owner at the end of the scope
        if (ordered) {
            TESSEL_CUDA_CHECK(cudaEventRecord(s.event, s.owner));
            TESSEL_CUDA_CHECK(cudaStreamWaitEvent(s.user, s.event, 0));
        }
        TESSEL_LAUNCH(1, 64, 0, s.user, fill_kernel)(buffer.data(), 7.0f, 64);
        status = cudaStreamSynchronize(s.user);
        (void)cudaGetLastError();
        if (status == cudaSuccess) {
            TESSEL_CUDA_CHECK(cudaMemcpyAsync(&value, buffer.data() + 63, sizeof(float), cudaMemcpyDeviceToHost, s.user));
            // The free on s.owner must come after the copy on s.user.
            TESSEL_CUDA_CHECK(cudaEventRecord(s.event, s.user));
            TESSEL_CUDA_CHECK(cudaStreamWaitEvent(s.owner, s.event, 0));
        }
    }
    return status;
}

cudaError_t launch_after_async_free() {
    TwoStreams s;
    void* p = nullptr;
    TESSEL_CUDA_CHECK(cudaMallocAsync(&p, 64 * sizeof(float), s.owner));
    TESSEL_LAUNCH(1, 64, 0, s.owner, fill_kernel)(static_cast<float*>(p), 1.0f, 64);
    TESSEL_CUDA_CHECK(cudaFreeAsync(p, s.owner));
    TESSEL_LAUNCH(1, 64, 0, s.owner, fill_kernel)(static_cast<float*>(p), 2.0f, 64);
    return cudaGetLastError();
}

cudaError_t run_across_async_free(bool ordered) {
    TwoStreams s;
    void* p = nullptr;
    TESSEL_CUDA_CHECK(cudaMallocAsync(&p, 64 * sizeof(float), s.owner));
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(s.owner));  // the allocation is ordered before everything below
    TESSEL_LAUNCH(1, 64, 0, s.user, fill_kernel)(static_cast<float*>(p), 1.0f, 64);
    if (ordered) {
        TESSEL_CUDA_CHECK(cudaEventRecord(s.event, s.user));
        TESSEL_CUDA_CHECK(cudaStreamWaitEvent(s.owner, s.event, 0));
    }
    TESSEL_CUDA_CHECK(cudaFreeAsync(p, s.owner));
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(s.owner));
    const cudaError_t status = cudaStreamSynchronize(s.user);
    (void)cudaGetLastError();
    return status;
}

}  // namespace tessel::sim_test
