// Backend names and the one resolution of `auto`.
#include "core/backend.hpp"

#include "core/error.hpp"

namespace tessel {

std::string_view to_string(Backend backend) {
    switch (backend) {
    case Backend::reference: return "reference";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::automatic: return "auto";
    }
    return "unknown";
}

Backend parse_backend(std::string_view name) {
    if (name == "reference") return Backend::reference;
    if (name == "cpu") return Backend::cpu;
    if (name == "cuda") return Backend::cuda;
    if (name == "auto") return Backend::automatic;
    TESSEL_INVALID_INPUT("--backend", 0,
                         "unknown backend '" + std::string(name) + "' (expected reference, cpu, cuda or auto)");
}

void require_backend(Backend backend, std::string_view option) {
    if (backend != Backend::cuda || cuda::device_available()) return;
    const std::string asked = std::string(option) + " cuda: ";
#ifdef TESSEL_HAVE_CUDA
    TESSEL_THROW(BackendUnavailable, asked + "no CUDA device is present (device: " + cuda::device_description() + ")");
#else
    TESSEL_THROW(BackendUnavailable,
                 asked + "this build has no CUDA (configure with -DTESSEL_ENABLE_CUDA=ON where nvcc is found)");
#endif
}

Backend resolve_backend(Backend requested, std::string_view option) {
#if defined(TESSEL_CUDA_SIM)
    // The simulated device checks the CUDA code; it is far too slow to be chosen for real work.
    if (requested == Backend::automatic) return Backend::cpu;
#endif
    if (requested == Backend::automatic) return cuda::device_available() ? Backend::cuda : Backend::cpu;
    require_backend(requested, option);
    return requested;
}

}  // namespace tessel
