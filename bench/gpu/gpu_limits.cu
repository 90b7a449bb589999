// The card's own limits, measured in the run that times tessel on it (docs/BENCHMARKS.md "GPU"):
// device-memory bandwidth (a triad kernel, bytes read + written), host-device copies from pageable
// and pinned memory (and down into registered pageable memory), and cuBLAS DGEMM / SGEMM at
// square sizes (the abcd tile sizes among them).
// Prints a table and writes JSON. usage: tessel-bench-gpu-limits [--json FILE]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <iostream>
#include <memory>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/common/table.hpp"
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/kernels/gemm_kernels.hpp"

using namespace tessel;

namespace {

__global__ void triad_kernel(double* a, const double* b, const double* c, double s, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) a[i] = b[i] + s * c[i];
}

__global__ void fill_kernel(double* a, long long n, double value) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride)
        a[i] = value + 1e-9 * double(i % 977);
}

// GB/s of a triad over three arrays of n doubles (median-free: the mean of 20 after a warm-up).
double triad_gbs(long long n) {
    cuda::DeviceBuffer<double> a(n), b(n), c(n);
    TESSEL_LAUNCH(1024, 256, 0, nullptr, fill_kernel)(b.data(), n, 1.0);
    TESSEL_LAUNCH(1024, 256, 0, nullptr, fill_kernel)(c.data(), n, 2.0);
    const double ms = cuda::time_ms([&] { TESSEL_LAUNCH(132 * 8, 256, 0, nullptr, triad_kernel)(a.data(), b.data(), c.data(), 3.0, n); },
                                    nullptr, 20, 2);
    return 3.0 * double(n) * sizeof(double) / (ms / 1e3) / 1e9;
}

// GB/s of one host-to-device copy of `bytes` from pageable or pinned memory.
double upload_gbs(std::size_t bytes, bool pinned) {
    const long long n = static_cast<long long>(bytes / sizeof(double));
    cuda::DeviceBuffer<double> d(n);
    std::vector<double> pageable;
    cuda::PinnedBuffer<double> locked;
    double* host = nullptr;
    if (pinned) {
        locked.reserve(n);
        host = locked.data();
    } else {
        pageable.assign(static_cast<std::size_t>(n), 1.0);
        host = pageable.data();
    }
    for (long long i = 0; i < n; ++i) host[i] = double(i % 1000);
    const double ms = cuda::time_ms([&] { d.upload(host, n); }, nullptr, 5, 1);
    return double(bytes) / (ms / 1e3) / 1e9;
}

// GB/s of pinned copies of `bytes`: down alone, and up and down at once on two streams (each
// way). abcd's C goes down while its A goes up: the link's both-ways rate bounds that overlap.
// Also down into registered pageable memory (cudaHostRegister, as abcd's C tiles), in pieces
// of `piece` bytes: whether the copies abcd makes reach the pinned rate.
struct PinnedRates {
    double down = 0, both_each = 0, down_registered = 0;
};

double registered_down_gbs(const cuda::DeviceBuffer<double>& from, std::size_t bytes, std::size_t piece,
                           cuda::Stream& down) {
    constexpr std::size_t page = 4096;
    std::unique_ptr<void, decltype(&std::free)> host(std::aligned_alloc(page, bytes), &std::free);
    std::memset(host.get(), 0, bytes);  // pages touched first, as a tile cache's are
    if (!cuda::register_host_memory(host.get(), bytes)) return 0.0;
    auto* to = static_cast<char*>(host.get());
    const auto* src = reinterpret_cast<const char*>(from.data());
    const auto copy_all = [&] {
        for (std::size_t at = 0; at < bytes; at += piece)
            cuda::copy_to_host(to + at, src + at, std::min(piece, bytes - at), down.get());
        down.synchronize();
    };
    copy_all();  // warm-up
    const auto t0 = std::chrono::steady_clock::now();
    copy_all();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cuda::unregister_host_memory(host.get());
    return double(bytes) / s / 1e9;
}
PinnedRates pinned_rates(std::size_t bytes) {
    const long long n = static_cast<long long>(bytes / sizeof(double));
    cuda::DeviceBuffer<double> d_up(n), d_down(n);
    cuda::PinnedBuffer<double> h_up, h_down;
    h_up.reserve(n);
    h_down.reserve(n);
    for (long long i = 0; i < n; ++i) h_up.data()[i] = double(i % 1000);
    d_down.fill_zero(nullptr);
    cuda::Stream up, down;
    const auto seconds = [&](bool with_up) {
        cuda::synchronize_device();
        const auto t0 = std::chrono::steady_clock::now();
        if (with_up) cuda::copy_to_device(d_up.data(), h_up.data(), bytes, up.get());
        cuda::copy_to_host(h_down.data(), d_down.data(), bytes, down.get());
        up.synchronize();
        down.synchronize();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    PinnedRates r;
    seconds(true);  // warm-up
    r.down = double(bytes) / seconds(false) / 1e9;
    r.both_each = double(bytes) / seconds(true) / 1e9;  // the two copies end near together
    r.down_registered = registered_down_gbs(d_down, bytes, std::size_t(10) << 20, down);
    return r;
}

// TFLOP/s of C := A·B, m = n = k = size, on random-ish data (never zeros).
template <typename V>
double gemm_tflops(long long size) {
    const long long count = size * size;
    cuda::DeviceBuffer<V> a(count), b(count), c(count);
    std::vector<V> host(static_cast<std::size_t>(count));
    for (long long i = 0; i < count; ++i) host[std::size_t(i)] = V(0.5) + V((i * 7919) % 1000) / V(1000);
    a.upload(host.data(), count);
    b.upload(host.data(), count);
    cuda::GemmHandle handle;
    const int repetitions = size <= 1024 ? 50 : (size <= 4096 ? 10 : 4);
    const double ms = cuda::time_ms(
        [&] { cuda::gemm(handle, size, size, size, V(1), a.data(), size, b.data(), size, V(0), c.data(), size); },
        nullptr, repetitions, 2);
    return 2.0 * double(size) * double(size) * double(size) / (ms / 1e3) / 1e12;
}

}  // namespace

int main(int argc, char** argv) {
    std::string json_path;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--json") json_path = argv[i + 1];
    try {
        nlohmann::json j;
        bench::TextTable table({"limit", "value", "unit"});
        const double triad = triad_gbs(1LL << 27);  // 3 GiB in all
        j["triad_gbs"] = triad;
        table.add_row({"triad bandwidth (read + write)", bench::format_number(triad), "GB/s"});
        for (bool pinned : {false, true}) {
            const double gbs = upload_gbs(std::size_t(1) << 30, pinned);
            j[pinned ? "h2d_pinned_gbs" : "h2d_pageable_gbs"] = gbs;
            table.add_row({std::string("host to device, ") + (pinned ? "pinned" : "pageable"), bench::format_number(gbs), "GB/s"});
        }
        const PinnedRates rates = pinned_rates(std::size_t(1) << 30);
        j["d2h_pinned_gbs"] = rates.down;
        j["both_ways_pinned_gbs_each"] = rates.both_each;
        table.add_row({"device to host, pinned", bench::format_number(rates.down), "GB/s"});
        table.add_row({"both ways at once, pinned (each way)", bench::format_number(rates.both_each), "GB/s"});
        j["d2h_registered_gbs"] = rates.down_registered;
        table.add_row({"device to host, registered pageable, 10 MiB copies",
                       bench::format_number(rates.down_registered), "GB/s"});
        for (long long size : {256LL, 512LL, 1024LL, 2048LL, 4096LL, 8192LL}) {
            const double d = gemm_tflops<double>(size), s = gemm_tflops<float>(size);
            j["dgemm_tflops"][std::to_string(size)] = d;
            j["sgemm_tflops"][std::to_string(size)] = s;
            table.add_row({"cuBLAS DGEMM " + std::to_string(size) + "^3", bench::format_number(d), "TFLOP/s"});
            table.add_row({"cuBLAS SGEMM " + std::to_string(size) + "^3", bench::format_number(s), "TFLOP/s"});
        }
        table.print(std::cout);
        if (!json_path.empty()) std::ofstream(json_path) << j.dump(2) << "\n";
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tessel-bench-gpu-limits: %s\n", e.what());
        return 1;
    }
    return 0;
}
