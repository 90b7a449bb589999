// Kernels for the simulator's own tests (tests/cuda_sim/test_cuda_sim.cpp).
#include "tests/cuda_sim/sim_kernels.cuh"

#include <atomic>

#include "core/cuda/device_code.hpp"
#include "core/cuda/device_spmm.hpp"

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

}  // namespace

cudaError_t reverse_in_block(const std::vector<float>& in, std::vector<float>& out, bool with_barrier) {
    const int n = int(in.size());
    cuda::DeviceBuffer<float> d_in(in.data(), n), d_out(n);
    TESSEL_LAUNCH(1, unsigned(n), n * sizeof(float), nullptr, reverse_kernel)(d_in.data(), d_out.data(), n, with_barrier);
    const cudaError_t status = cudaGetLastError();
    out.resize(in.size());
    d_out.download(out.data(), n);
    return status;
}

cudaError_t warp_sums(int warps, std::vector<int>& sums) {
    cuda::DeviceBuffer<int> d(warps);
    TESSEL_LAUNCH(1, unsigned(32 * warps), 0, nullptr, warp_sum_kernel)(d.data());
    const cudaError_t status = cudaGetLastError();
    sums.resize(std::size_t(warps));
    d.download(sums.data(), warps);
    return status;
}

cudaError_t warp_votes(unsigned& ballot, int& any, int& all) {
    cuda::DeviceBuffer<unsigned> b(1);
    cuda::DeviceBuffer<int> a(1), l(1);
    TESSEL_LAUNCH(1, 32, 0, nullptr, vote_kernel)(b.data(), a.data(), l.data());
    const cudaError_t status = cudaGetLastError();
    b.download(&ballot, 1);
    a.download(&any, 1);
    l.download(&all, 1);
    return status;
}

cudaError_t shuffle_with_exited_lanes() {
    cuda::DeviceBuffer<int> d(32);
    TESSEL_LAUNCH(1, 32, 0, nullptr, exited_lanes_kernel)(d.data());
    return cudaGetLastError();
}

cudaError_t barrier_deadlock() {
    cuda::DeviceBuffer<int> d(32);
    TESSEL_LAUNCH(1, 32, 0, nullptr, deadlock_kernel)(d.data());
    return cudaGetLastError();
}

cudaError_t shared_out_of_bounds() {
    cuda::DeviceBuffer<float> d(1);
    TESSEL_LAUNCH(1, 64, 64 * sizeof(float), nullptr, out_of_bounds_kernel)(d.data());
    return cudaGetLastError();
}

cudaError_t shared_atomic_count(int threads, int& count) {
    cuda::DeviceBuffer<int> d(1);
    TESSEL_LAUNCH(1, unsigned(threads), 0, nullptr, atomic_count_kernel)(d.data());
    const cudaError_t status = cudaGetLastError();
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
    const cudaError_t status = cudaGetLastError();
    if (optin > 0) cudaFuncSetAttribute(touch_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);
    return status;
}

cudaError_t write_through(float* p) {
    TESSEL_LAUNCH(1, 32, 0, nullptr, touch_kernel)(p);
    return cudaGetLastError();
}

std::vector<int> first_arrival_order(int threads) {
    cuda::DeviceBuffer<int> order(threads), next(1);
    next.fill_zero();
    TESSEL_LAUNCH(1, unsigned(threads), 0, nullptr, arrival_kernel)(order.data(), next.data());
    std::vector<int> out(std::size_t(threads), 0);
    order.download(out.data(), threads);
    return out;
}

}  // namespace tessel::sim_test
