// The CUDA simulator's own checks: barriers, warp collectives, shared-memory bounds and races,
// launch limits, device memory apart from host memory, library stand-ins' argument checks.
#include <catch2/catch.hpp>

#include <algorithm>

#include <cuda_runtime_api.h>

#include <numeric>
#include <string>
#include <vector>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "tests/cuda_sim/sim_kernels.cuh"

using namespace tessel;

namespace {
std::string sim_detail() { return sim::last_error_detail(); }
}  // namespace

TEST_CASE("__syncthreads is a real barrier: a block reverses an array through shared memory", "[cuda][sim]") {
    std::vector<float> in(200), out;
    std::iota(in.begin(), in.end(), 0.0f);
    REQUIRE(sim_test::reverse_in_block(in, out, true) == cudaSuccess);
    for (std::size_t i = 0; i < in.size(); ++i) CHECK(out[i] == in[in.size() - 1 - i]);
}

TEST_CASE("a missing __syncthreads is reported as a shared-memory race", "[cuda][sim]") {
    std::vector<float> in(200, 1.0f), out;
    CHECK(sim_test::reverse_in_block(in, out, false) == cudaErrorLaunchFailure);
    CHECK_THAT(sim_detail(), Catch::Contains("race in shared memory") && Catch::Contains("reverse_kernel") &&
                             Catch::Contains("with no barrier between"));
}

TEST_CASE("shuffles exchange values among the 32 lanes", "[cuda][sim]") {
    std::vector<int> sums;
    REQUIRE(sim_test::warp_sums(4, sums) == cudaSuccess);
    for (int w = 0; w < 4; ++w) CHECK(sums[std::size_t(w)] == 31 * 32 / 2 + 32 * w);
}

TEST_CASE("ballot, any and all vote over the lanes", "[cuda][sim]") {
    unsigned ballot = 0;
    int any = 0, all = 0;
    REQUIRE(sim_test::warp_votes(ballot, any, all) == cudaSuccess);
    unsigned expected = 0;
    for (int l = 0; l < 32; l += 3) expected |= 1u << l;
    CHECK(ballot == expected);
    CHECK(any == 1);
    CHECK(all == 1);
}

TEST_CASE("warp reductions and match over the lanes", "[cuda][sim]") {
    std::vector<int> out;
    REQUIRE(sim_test::warp_reductions(out) == cudaSuccess);
    int sum = 0, low_sum = 0;
    unsigned umin = ~0u, umax = 0, uand = ~0u, uor = 0, uxor = 0;
    for (int l = 0; l < 32; ++l) {
        const unsigned u = unsigned(l * 37 % 29);
        sum += l - 10;
        if (l < 16) low_sum += l - 10;
        umin = std::min(umin, u);
        umax = std::max(umax, u);
        uand &= u | 0x100u;
        uor |= u;
        uxor ^= u;
    }
    for (int l = 0; l < 32; ++l) {
        CAPTURE(l);
        const int* r = &out[std::size_t(l) * 10];
        CHECK(r[0] == sum);
        CHECK(r[1] == -10);  // signed: the negative values are the smallest
        CHECK(r[2] == 21);
        CHECK(unsigned(r[3]) == umin);
        CHECK(unsigned(r[4]) == umax);
        CHECK(unsigned(r[5]) == uand);
        CHECK(unsigned(r[6]) == uor);
        CHECK(unsigned(r[7]) == uxor);
        CHECK(r[8] == (l < 16 ? low_sum : 0));
        unsigned same = 0;
        for (int o = l % 5; o < 32; o += 5) same |= 1u << o;
        CHECK(unsigned(r[9]) == same);
    }
}

TEST_CASE("a mask naming lanes that have exited is an error, not a hang", "[cuda][sim]") {
    CHECK(sim_test::shuffle_with_exited_lanes() == cudaErrorLaunchFailure);
    CHECK_THAT(sim_detail(), Catch::Contains("never arrive"));
}

TEST_CASE("threads split between __syncthreads and a shuffle are a reported deadlock", "[cuda][sim]") {
    CHECK(sim_test::barrier_deadlock() == cudaErrorLaunchFailure);
    CHECK_THAT(sim_detail(), Catch::Contains("deadlock in kernel deadlock_kernel"));
}

TEST_CASE("a read past a shared array is an illegal address", "[cuda][sim]") {
    CHECK(sim_test::shared_out_of_bounds() == cudaErrorIllegalAddress);
    CHECK_THAT(sim_detail(), Catch::Contains("outside the block's shared arrays"));
}

TEST_CASE("shared-memory atomics from every thread are no race", "[cuda][sim]") {
    int count = 0;
    REQUIRE(sim_test::shared_atomic_count(512, count) == cudaSuccess);
    CHECK(count == 512);
}

TEST_CASE("launches are held to an H100's limits", "[cuda][sim]") {
    CHECK(sim_test::launch_with(1024, 0, 0) == cudaSuccess);
    CHECK(sim_test::launch_with(1025, 0, 0) == cudaErrorInvalidConfiguration);
    CHECK(sim_test::launch_with(32, 48 * 1024, 0) == cudaSuccess);
    CHECK(sim_test::launch_with(32, 48 * 1024 + 4, 0) == cudaErrorInvalidValue);
    CHECK_THAT(sim_detail(), Catch::Contains("cudaFuncSetAttribute"));
    CHECK(sim_test::launch_with(32, 100 * 1024, 227 * 1024) == cudaSuccess);
    CHECK(sim_test::launch_with(32, 0, 228 * 1024) == cudaErrorInvalidValue);
}

TEST_CASE("a kernel handed a host pointer fails as on the GPU", "[cuda][sim]") {
    float host = 0;
    CHECK(sim_test::write_through(&host) == cudaErrorIllegalAddress);
    CHECK_THAT(sim_detail(), Catch::Contains("argument 0 is a host pointer"));
    cuda::DeviceBuffer<float> device(1);
    CHECK(sim_test::write_through(device.data()) == cudaSuccess);
}

TEST_CASE("copies are checked for their direction and the allocation's end", "[cuda][sim]") {
    cuda::DeviceBuffer<float> d(4);
    std::vector<float> h(8, 1.0f);
    CHECK(cudaMemcpy(d.data(), h.data(), 4 * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemcpy(h.data(), d.data(), 4 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(d.data(), h.data(), 8 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK_THAT(sim_detail(), Catch::Contains("run past its end"));
    CHECK(cudaMemset(h.data(), 0, 4) == cudaErrorInvalidValue);
    CHECK(cudaFree(h.data()) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

TEST_CASE("fresh device memory is garbage (NaN), as on a GPU", "[cuda][sim]") {
    cuda::DeviceBuffer<float> d(3);
    std::vector<float> h(3, 0.0f);
    d.download(h.data(), 3);
    for (float x : h) CHECK(x != x);
}

TEST_CASE("the threads of a block run in a seeded shuffled order", "[cuda][sim]") {
    const std::vector<int> a = sim_test::first_arrival_order(256), b = sim_test::first_arrival_order(256);
    std::vector<int> identity(256);
    std::iota(identity.begin(), identity.end(), 0);
    std::vector<int> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == identity);  // every thread once
    CHECK(a != identity);
    CHECK(a != b);  // each launch its own order
}

TEST_CASE("streams and events: stream order, timing, and dead handles refused", "[cuda][sim]") {
    cudaStream_t s = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaEventCreate(&start) == cudaSuccess);
    REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
    CHECK(cudaEventRecord(start, s) == cudaSuccess);
    CHECK(cudaEventRecord(stop, s) == cudaSuccess);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorNotReady);  // not waited for yet
    CHECK(cudaEventSynchronize(stop) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
    CHECK(ms >= 0);
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
    CHECK(cudaStreamSynchronize(s) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventDestroy(start) == cudaSuccess);
    CHECK(cudaEventDestroy(stop) == cudaSuccess);
    (void)cudaGetLastError();
}

TEST_CASE("stream work runs when waited for: a read before the wait sees stale data", "[cuda][sim]") {
    float before = 0;
    const float after = sim_test::read_before_and_after_sync(before);
    CHECK(before == -1.0f);
    CHECK(after == 5.0f);
}

TEST_CASE("an event orders two streams, and without it the consumer reads stale data", "[cuda][sim]") {
    CHECK(sim_test::across_streams(true) == 3.0f);
    const float unordered = sim_test::across_streams(false);
    CHECK(unordered != 3.0f);  // fresh device memory: NaN
}

TEST_CASE("stream-ordered memory is usable only once its allocation is ordered before the use",
          "[cuda][sim]") {
    float value = 0;
    CHECK(sim_test::fill_async_allocation(true, value) == cudaSuccess);
    CHECK(value == 7.0f);
    CHECK(sim_test::fill_async_allocation(false, value) == cudaErrorIllegalAddress);
    CHECK_THAT(sim_detail(), Catch::Contains("before its stream-ordered allocation (cudaMallocAsync) is ordered"));
}

TEST_CASE("stream-ordered memory is not usable after its stream-ordered free", "[cuda][sim]") {
    // Launched after cudaFreeAsync: refused at once.
    CHECK(sim_test::launch_after_async_free() == cudaErrorIllegalAddress);
    CHECK_THAT(sim_detail(), Catch::Contains("used after its stream-ordered free"));
    // Launched before it, on another stream: fine when the free waits for the kernel, a fault
    // when the kernel runs after the free stream reached the free.
    CHECK(sim_test::run_across_async_free(true) == cudaSuccess);
    CHECK(sim_test::run_across_async_free(false) == cudaErrorIllegalAddress);
    CHECK_THAT(sim_detail(), Catch::Contains("used after its stream-ordered free"));
    // A second stream-ordered free of the same memory is refused.
    void* p = nullptr;
    REQUIRE(cudaMallocAsync(&p, 16, nullptr) == cudaSuccess);
    CHECK(cudaFreeAsync(p, nullptr) == cudaSuccess);
    CHECK(cudaFreeAsync(p, nullptr) == cudaErrorInvalidValue);
    CHECK(cudaStreamSynchronize(nullptr) == cudaSuccess);
    (void)cudaGetLastError();
}

TEST_CASE("registered host memory is pinned until unregistered: copies from it run in stream order", "[cuda][sim]") {
    // A pageable source is read when the copy is enqueued, a pinned one when the stream runs it.
    auto value_copied = [](std::vector<float>& h) {
        cuda::DeviceBuffer<float> d(4);
        cuda::Stream s;
        h[0] = 1.0f;
        REQUIRE(cudaMemcpyAsync(d.data(), h.data(), 4 * sizeof(float), cudaMemcpyHostToDevice, s.get()) == cudaSuccess);
        h[0] = 7.0f;
        std::vector<float> back(4);
        d.download(back.data(), 4, s.get());
        return back[0];
    };
    std::vector<float> h(1024, 0.0f);
    CHECK(value_copied(h) == 1.0f);
    REQUIRE(cudaHostRegister(h.data(), h.size() * sizeof(float), cudaHostRegisterPortable) == cudaSuccess);
    CHECK(value_copied(h) == 7.0f);
    CHECK(cudaHostRegister(h.data() + 8, 16, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered);
    CHECK(cudaFreeHost(h.data()) == cudaErrorInvalidValue);  // still the caller's memory
    CHECK(cudaHostUnregister(h.data()) == cudaSuccess);
    CHECK(cudaHostUnregister(h.data()) == cudaErrorHostMemoryNotRegistered);
    CHECK(value_copied(h) == 1.0f);
    (void)cudaGetLastError();
}

TEST_CASE("CudaError carries the simulator's explanation", "[cuda][sim]") {
    float host = 0;
    try {
        TESSEL_CUDA_CHECK(sim_test::write_through(&host));
        FAIL("no CudaError");
    } catch (const CudaError& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains("cudaErrorIllegalAddress") &&
                                              Catch::Contains("simulator: launch of touch_kernel"));
    }
}
