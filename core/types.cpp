// Names of layouts and backends.
#include "core/types.hpp"

#include <string>

#include "core/error.hpp"

namespace tessel {

std::string_view to_string(Layout layout) {
    return layout == Layout::row_major ? "row_major" : "col_major";
}

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
                         "unknown backend '" + std::string(name) +
                             "' (expected reference, cpu, cuda or auto)");
}

}  // namespace tessel
