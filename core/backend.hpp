// Where kernels run: the backend enum, `auto` resolved in one place, device presence.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace tessel {

/// A backend asked for that cannot run here: cuda in a build without CUDA, or with no device
/// present. The one error for "cuda asked, none here" (resolve_backend, require_backend); a
/// NotCompiled, so code that catches a missing backend catches both cases.
class BackendUnavailable : public NotCompiled {
public:
    using NotCompiled::NotCompiled;
};

/// Where a kernel runs. `automatic` resolves to cuda when a device is present, else cpu (and to
/// cpu under the CUDA simulator, whose device is for checking the CUDA code).
enum class Backend { reference, cpu, cuda, automatic };

std::string_view to_string(Backend backend);
/// Parses "reference", "cpu", "cuda" or "auto"; throws InvalidInput otherwise.
Backend parse_backend(std::string_view name);

/// The one backend policy: automatic -> cuda when a device is present, else cpu; any other is
/// returned as it is once require_backend accepts it. The CLIs and Python call this once, where
/// options are parsed, and pass the result down. Throws BackendUnavailable (see require_backend).
Backend resolve_backend(Backend requested, std::string_view option = "--backend");

/// Throws BackendUnavailable "OPTION cuda: this build has no CUDA (...)" or "OPTION cuda: no CUDA
/// device is present (device: ...)" unless `backend` can run here; `option` names what asked.
void require_backend(Backend backend, std::string_view option = "--backend");

namespace cuda {
/// True when this build has CUDA and a device is present (never throws).
bool device_available();
/// Name and memory of device 0, or "none".
std::string device_description();
/// CUDA devices visible to this process (0 without CUDA in the build or without a device; never
/// throws).
int device_count();
/// Free memory of device `device` mod device_count(), in bytes; 0 when there is none. Makes that
/// device current. Throws CudaError when the runtime fails.
std::int64_t device_free_memory(int device);
/// Makes the current device's primary context (the driver's start and the context: a tenth of a
/// second or more in a fresh process; nothing when it exists) and returns the seconds it took.
/// 0 without CUDA in the build or without a device. Never throws: a failure is left for the
/// first real device call to report.
double create_context();
}  // namespace cuda

}  // namespace tessel
