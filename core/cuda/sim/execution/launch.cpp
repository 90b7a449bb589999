// Launches: the configuration checked against the H100 profile, pointer arguments checked to
// be device memory, one line in the launch log, then the blocks spread over the worker pool.
#include "core/cuda/sim/execution/launch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "core/cuda/sim/execution/block_runner.hpp"
#include "core/cuda/sim/execution/worker_pool.hpp"
#include "core/cuda/sim/memory/device_memory.hpp"
#include "core/cuda/sim/runtime/device_profile.hpp"
#include "core/cuda/sim/runtime/fault.hpp"
#include "core/cuda/sim/runtime/streams.hpp"

namespace tessel::sim {

namespace {

std::mutex attribute_mutex;
std::map<const void*, int>& max_dynamic_shared() {
    static std::map<const void*, int> m;
    return m;
}

std::atomic<std::uint64_t> launch_count{0};

std::string dims(const dim3& d) {
    return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

// "ns::tiled_ell_kernel<R, V, I>" -> "tiled_ell_kernel": the name after __global__ void.
std::string kernel_name(const char* written) {
    std::string s(written);
    s = s.substr(0, s.find('<'));
    const std::size_t colon = s.rfind("::");
    if (colon != std::string::npos) s = s.substr(colon + 2);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

std::string check_configuration(const LaunchConfig& c) {
    namespace h = h100;
    const unsigned block[3] = {c.block.x, c.block.y, c.block.z}, grid[3] = {c.grid.x, c.grid.y, c.grid.z};
    for (int i = 0; i < 3; ++i) {
        if (block[i] == 0 || block[i] > h::max_block_dim[i] || grid[i] == 0 || grid[i] > h::max_grid_dim[i])
            return "grid (" + dims(c.grid) + ") x block (" + dims(c.block) + ") is outside the device's limits";
    }
    if (std::size_t(c.block.x) * c.block.y * c.block.z > std::size_t(h::max_threads_per_block))
        return "a block of " + std::to_string(std::size_t(c.block.x) * c.block.y * c.block.z) +
               " threads is over the device's 1024";
    return {};
}

std::string check_dynamic_shared(const LaunchConfig& c) {
    int limit = int(h100::shared_per_block);
    {
        std::lock_guard lock(attribute_mutex);
        auto it = max_dynamic_shared().find(c.kernel);
        if (it != max_dynamic_shared().end()) limit = it->second;
    }
    if (c.dynamic_shared > std::size_t(limit))
        return std::to_string(c.dynamic_shared) + " bytes of dynamic shared memory are over the kernel's limit of " +
               std::to_string(limit) + (limit == int(h100::shared_per_block)
                                            ? " (above 48 KiB a kernel opts in with cudaFuncSetAttribute)"
                                            : "");
    return {};
}

std::string check_pointers(const std::vector<PointerArgument>& pointers) {
    for (const PointerArgument& p : pointers) {
        if (std::string why = stream_order_problem(p.address, false); !why.empty())
            return "argument " + std::to_string(p.position) + ": " + why;
        std::string problem;
        const MemoryKind kind = memory_kind(p.address, 1, problem);
        if (kind == MemoryKind::host) {
            char address[32];
            std::snprintf(address, sizeof address, "%p", p.address);
            return "argument " + std::to_string(p.position) + " is a host pointer (" + address +
                   "), not device memory: a GPU would fault on it";
        }
    }
    return {};
}

void log_launch(const std::string& name, const LaunchConfig& c) {
    static const char* path = std::getenv("TESSEL_SIM_LAUNCH_LOG");
    if (path == nullptr || *path == '\0') return;
    const std::string line = name + " grid=" + dims(c.grid) + " block=" + dims(c.block) +
                             " shared=" + std::to_string(c.dynamic_shared) + "\n";
    // One write per line with O_APPEND: the ranks of an MPI test share the log.
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    if (::write(fd, line.data(), line.size()) < 0) {
    }
    ::close(fd);
}

std::uint64_t base_seed() {
    static const std::uint64_t seed = [] {
        const char* v = std::getenv("TESSEL_SIM_SEED");
        return v ? std::strtoull(v, nullptr, 0) : 1ull;
    }();
    return seed;
}

void run_blocks(const LaunchConfig& c, const std::string& name, const std::function<void()>& body) {
    const long long blocks = (long long)c.grid.x * c.grid.y * c.grid.z;
    const std::uint64_t launch = launch_count.fetch_add(1);
    std::mutex failure_mutex;
    std::string failure;
    cudaError_t status = cudaSuccess;
    std::atomic<bool> failed{false};
    run_on_pool(blocks, [&](long long i) {
        if (failed.load()) return;
        BlockJob job{name.c_str(), c.grid, c.block,
                     uint3{unsigned(i % c.grid.x), unsigned(i / c.grid.x % c.grid.y),
                           unsigned(i / ((long long)c.grid.x * c.grid.y))},
                     c.dynamic_shared, base_seed() * 0x9E3779B97F4A7C15ull + launch * 1000003ull + std::uint64_t(i), &body};
        try {
            run_block(job);
        } catch (const Fault& f) {
            std::lock_guard lock(failure_mutex);
            if (!failed.exchange(true)) failure = f.what(), status = f.status;
        } catch (const std::exception& e) {
            std::lock_guard lock(failure_mutex);
            if (!failed.exchange(true))
                failure = "kernel " + name + ": " + e.what(), status = cudaErrorLaunchFailure;
        }
    });
    if (failed) {
        fail(status, failure);
        set_async_error(status);
    }
}

}  // namespace

void launch_grid(const LaunchConfig& config, const std::vector<PointerArgument>& pointers,
                 std::function<void()> body) {
    const std::string name = kernel_name(config.written);
    if (const std::string why = check_configuration(config); !why.empty()) {
        fail(cudaErrorInvalidConfiguration, "launch of " + name + ": " + why);
        return;
    }
    if (const std::string why = check_dynamic_shared(config); !why.empty()) {
        fail(cudaErrorInvalidValue, "launch of " + name + ": " + why);
        return;
    }
    if (!valid_stream(config.stream)) {
        fail(cudaErrorInvalidResourceHandle, "launch of " + name + ": not a live stream");
        return;
    }
    if (const std::string why = check_pointers(pointers); !why.empty()) {
        fail(cudaErrorIllegalAddress, "launch of " + name + ": " + why);
        return;
    }
    log_launch(name, config);
    enqueue(config.stream, [config, name, pointers, body = std::move(body)] {
        // Stream-ordered memory must be live when the kernel runs, not only when it is launched.
        for (const PointerArgument& p : pointers)
            if (const std::string why = stream_order_problem(p.address, true); !why.empty()) {
                fail(cudaErrorIllegalAddress,
                     "launch of " + name + ": argument " + std::to_string(p.position) + ": " + why);
                set_async_error(cudaErrorIllegalAddress);
                return;
            }
        run_blocks(config, name, body);
    });
}

}  // namespace tessel::sim

cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value) {
    if (kernel == nullptr) return tessel::sim::fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetAttribute: null kernel");
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize)
        return tessel::sim::fail(cudaErrorInvalidValue, "cudaFuncSetAttribute: attribute not simulated");
    if (value < 0 || std::size_t(value) > tessel::sim::h100::shared_per_block_optin)
        return tessel::sim::fail(cudaErrorInvalidValue, "cudaFuncSetAttribute: " + std::to_string(value) +
                                                            " bytes of dynamic shared memory are over the device's " +
                                                            std::to_string(tessel::sim::h100::shared_per_block_optin));
    std::lock_guard lock(tessel::sim::attribute_mutex);
    tessel::sim::max_dynamic_shared()[kernel] = value;
    return cudaSuccess;
}
