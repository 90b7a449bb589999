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

Backend resolve_backend(Backend requested) {
    if (requested == Backend::automatic) return cuda::device_available() ? Backend::cuda : Backend::cpu;
    if (requested == Backend::cuda && !cuda::device_available()) {
        // Ask the cuda layer for its own error: NotCompiled or "no device".
        cuda::device_description();
        TESSEL_THROW(CudaError, "backend cuda requested but no CUDA device is available");
    }
    return requested;
}

}  // namespace tessel
