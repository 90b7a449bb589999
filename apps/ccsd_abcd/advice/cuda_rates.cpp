// cuBLAS GEMM and copy rates of device 0, measured with the cuda executor's own calls.
#include "apps/ccsd_abcd/advice/cuda_rates.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <type_traits>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {

constexpr int streams = 4;                               // as the cuda executor (cuda_executor.cpp)
constexpr double pool_bytes = 256.0 * 1024 * 1024;       // per operand: beyond the device's L2
constexpr std::size_t copy_bytes = std::size_t(64) << 20;  // one batch of B tiles (cuda_executor.cpp)

// The executor's streams and one cuBLAS handle on each (handles go first: declared last).
struct Streams {
    std::vector<cuda::Stream> s;
    std::vector<cuda::GemmHandle> handles;
    Streams() {
        for (int i = 0; i < streams; ++i) {
            s.emplace_back();
            handles.emplace_back(static_cast<void*>(s.back().get()));
        }
    }
};

// One shape: GEMMs on operand sets that cycle through the pool (as the executor's tiles lie
// apart in device memory; the values are never read back), issued by one host thread for about
// `seconds`; wall time until the device is done. Best of three.
template <typename T>
double time_shape(Streams& st, cuda::DeviceBuffer<T>& a, cuda::DeviceBuffer<T>& b, cuda::DeviceBuffer<T>& c,
                  size_type m, size_type n, size_type k, double seconds) {
    const size_type mk = m * k, kn = k * n, mn = m * n;
    const size_type sets = std::max<size_type>(1, std::min({a.size() / mk, b.size() / kn, c.size() / mn, size_type(4096)}));
    const double flops = 2.0 * double(m) * double(n) * double(k);
    auto call = [&](long i) {
        const size_type s = size_type(i) % sets;
        cuda::gemm(st.handles[std::size_t(i % streams)], m, n, k, T(1), a.data() + s * mk, m, b.data() + s * kn, k, T(1),
                   c.data() + s * mn, m);
    };
    for (long i = 0; i < streams; ++i) call(i);  // warm-up
    cuda::synchronize_device();
    double best = 0;
    for (int round = 0; round < 3; ++round) {
        Timer t;
        long calls = 0;
        do {
            for (int burst = 0; burst < 16; ++burst) call(calls++);
        } while (t.seconds() < seconds);
        cuda::synchronize_device();
        best = std::max(best, flops * double(calls) / t.seconds());
    }
    return best;
}

// Seconds per byte of a 64 MiB pinned copy in direction `kind`, best of three.
template <typename T>
double copy_seconds_per_byte(cuda::DeviceBuffer<T>& device, cuda::PinnedBuffer<T>& host, cudaMemcpyKind kind) {
    double best = 1e300;
    for (int round = 0; round < 3; ++round) {
        Timer t;
        if (kind == cudaMemcpyHostToDevice)
            cuda::copy_to_device(device.data(), host.data(), copy_bytes, nullptr);
        else
            cuda::copy_to_host(host.data(), device.data(), copy_bytes, nullptr);
        cuda::synchronize_device();
        best = std::min(best, t.seconds());
    }
    return best / double(copy_bytes);
}

template <typename T>
CudaRates measure(const std::vector<size_type>& sizes, double seconds) {
    TESSEL_CUDA_CHECK(cudaSetDevice(0));
    const auto largest = size_type(sizes.back() * sizes.back());
    const size_type elements = std::max(size_type(pool_bytes / sizeof(T)), largest * streams);
    cuda::DeviceBuffer<T> a(elements), b(elements), c(elements);
    // Values do not change a GEMM's time; zeros keep them finite.
    for (auto* buf : {&a, &b, &c}) TESSEL_CUDA_CHECK(cudaMemset(buf->data(), 0, std::size_t(elements) * sizeof(T)));
    Streams st;
    const std::size_t n = sizes.size();
    CudaRates r;
    r.rates.assign(n * n * n, 0.0);
    for (std::size_t im = 0; im < n; ++im)
        for (std::size_t in = 0; in < n; ++in)
            for (std::size_t ik = 0; ik < n; ++ik)
                r.rates[(im * n + in) * n + ik] = time_shape<T>(st, a, b, c, sizes[im], sizes[in], sizes[ik], seconds);
    cuda::PinnedBuffer<T> host;
    host.reserve(size_type(copy_bytes / sizeof(T)));
    std::fill(host.data(), host.data() + copy_bytes / sizeof(T), T(0));
    r.h2d_seconds_per_byte = copy_seconds_per_byte(a, host, cudaMemcpyHostToDevice);
    r.d2h_seconds_per_byte = copy_seconds_per_byte(a, host, cudaMemcpyDeviceToHost);
    return r;
}

}  // namespace

CudaRates measure_cuda_rates(bool double_precision, const std::vector<size_type>& sizes, double seconds) {
    return double_precision ? measure<double>(sizes, seconds) : measure<float>(sizes, seconds);
}

}  // namespace tessel::abcd
