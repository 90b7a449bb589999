// A kernel launch on the simulated device: TESSEL_LAUNCH (core/cuda/runtime/device_code.hpp) expands to
// kernel_launch(...)(args...). The arguments are converted to the kernel's parameter types once,
// then every thread of every block calls the kernel with its own copy.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessel::sim {

struct LaunchConfig {
    const char* written = "";  // the kernel as written in the launch, template arguments and all
    const void* kernel = nullptr;
    dim3 grid;
    dim3 block;
    std::size_t dynamic_shared = 0;
    cudaStream_t stream = nullptr;
};

/// A pointer argument of a launch (its position and value), checked to be device memory.
struct PointerArgument {
    int position;
    const void* address;
};

/// Checks the configuration against the device's limits and the pointer arguments, logs the
/// launch (TESSEL_SIM_LAUNCH_LOG) and queues the grid on its stream. A bad launch becomes the
/// thread's last error at once (cudaGetLastError); a fault while the grid runs is returned by
/// the call that waits for it (cudaStreamSynchronize and the like), as on a GPU.
void launch_grid(const LaunchConfig& config, const std::vector<PointerArgument>& pointers,
                 std::function<void()> body);

template <typename Tuple, std::size_t... N>
std::vector<PointerArgument> pointer_arguments(const Tuple& params, std::index_sequence<N...>) {
    std::vector<PointerArgument> found;
    const auto add = [&found](int position, const auto& value) {
        if constexpr (std::is_pointer_v<std::decay_t<decltype(value)>>)
            if (value != nullptr) found.push_back({position, static_cast<const void*>(value)});
    };
    (add(int(N), std::get<N>(params)), ...);
    return found;
}

template <typename... P>
class KernelLaunch {
public:
    KernelLaunch(const LaunchConfig& config, void (*kernel)(P...)) : config_(config), kernel_(kernel) {}

    template <typename... A>
    void operator()(A&&... args) const {
        static_assert(sizeof...(A) == sizeof...(P), "a kernel launch with the wrong number of arguments");
        // The arguments are kept with the queued grid, as the runtime copies them at launch.
        const auto params = std::make_shared<const std::tuple<std::decay_t<P>...>>(std::forward<A>(args)...);
        const auto kernel = kernel_;
        launch_grid(config_, pointer_arguments(*params, std::index_sequence_for<P...>{}),
                    [kernel, params] { std::apply(kernel, *params); });
    }

private:
    LaunchConfig config_;
    void (*kernel_)(P...);
};

template <typename... P>
KernelLaunch<P...> kernel_launch(const char* written, void (*kernel)(P...), dim3 grid, dim3 block,
                                 std::size_t dynamic_shared, cudaStream_t stream) {
    return KernelLaunch<P...>(
        LaunchConfig{written, reinterpret_cast<const void*>(kernel), grid, block, dynamic_shared, stream}, kernel);
}

}  // namespace tessel::sim
