// Where kernels run: the backend enum, `auto` resolved in one place, device presence.
#pragma once

#include <string>
#include <string_view>

namespace tessel {

/// Where a kernel runs. `automatic` resolves to cuda when a device is present, else cpu.
enum class Backend { reference, cpu, cuda, automatic };

std::string_view to_string(Backend backend);
/// Parses "reference", "cpu", "cuda" or "auto"; throws InvalidInput otherwise.
Backend parse_backend(std::string_view name);

/// automatic -> cuda when a device is present, else cpu; any other is returned as it is once
/// checked. Throws NotCompiled when cuda is asked for and this build has no CUDA, CudaError
/// when it has but no device is present. Apps call this once and pass the result down.
Backend resolve_backend(Backend requested);

namespace cuda {
/// True when this build has CUDA and a device is present (never throws).
bool device_available();
/// Name and memory of device 0, or "none".
std::string device_description();
}  // namespace cuda

}  // namespace tessel
