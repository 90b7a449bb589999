// Parsing "PxQ" process grids.
#include "apps/ccsd_abcd/process_grid.hpp"

#include <cstdlib>

#include "core/error.hpp"

namespace tessel::abcd {

ProcessGrid ProcessGrid::parse(const std::string& text, int ranks) {
    ProcessGrid g;
    if (text.empty()) {
        g.q = ranks;
        return g;
    }
    const auto x = text.find_first_of("xX");
    auto number = [&](const std::string& s) -> long {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
            TESSEL_INVALID_INPUT("--grid", 0, "'" + text + "' is not PxQ (for example 2x4)");
        return std::strtol(s.c_str(), nullptr, 10);
    };
    if (x == std::string::npos) TESSEL_INVALID_INPUT("--grid", 0, "'" + text + "' is not PxQ (for example 2x4)");
    const long p = number(text.substr(0, x)), q = number(text.substr(x + 1));
    if (p < 1 || q < 1) TESSEL_INVALID_INPUT("--grid", 0, "'" + text + "': both sides must be at least 1");
    if (p * q > ranks)
        TESSEL_INVALID_INPUT("--grid", 0, text + " needs " + std::to_string(p * q) + " processes, the run has " +
                                              std::to_string(ranks));
    g.p = static_cast<int>(p);
    g.q = static_cast<int>(q);
    return g;
}

}  // namespace tessel::abcd
