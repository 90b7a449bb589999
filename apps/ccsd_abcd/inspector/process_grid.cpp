// Parsing "PxQ" process grids.
#include "apps/ccsd_abcd/inspector/process_grid.hpp"

#include <charconv>
#include <cstdint>
#include <limits>

#include "core/error.hpp"

namespace tessel::abcd {

namespace {
// A side of the grid: decimal digits only; nullopt-like -1 when it does not fit in 63 bits
// (still a valid "too many processes" answer, never a wrapped number).
std::int64_t grid_side(const std::string& s, const std::string& text) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        TESSEL_INVALID_INPUT("--grid", 0, "'" + text + "' is not PxQ (for example 2x4)");
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) return std::numeric_limits<std::int64_t>::max();
    return v;
}
}  // namespace

ProcessGrid ProcessGrid::parse(const std::string& text, int ranks) {
    ProcessGrid g;
    if (text.empty()) {
        g.q = ranks;
        return g;
    }
    const auto x = text.find_first_of("xX");
    if (x == std::string::npos) TESSEL_INVALID_INPUT("--grid", 0, "'" + text + "' is not PxQ (for example 2x4)");
    const std::int64_t p = grid_side(text.substr(0, x), text), q = grid_side(text.substr(x + 1), text);
    if (p < 1 || q < 1) TESSEL_INVALID_INPUT("--grid", 0, "'" + text + "': both sides must be at least 1");
    // Sides beyond 2^31 are not multiplied (the product could wrap); they need too many anyway.
    const bool huge = p > std::numeric_limits<std::int32_t>::max() || q > std::numeric_limits<std::int32_t>::max();
    if (huge || p * q > ranks) {
        const std::string need = huge ? text.substr(0, x) + " x " + text.substr(x + 1) : std::to_string(p * q);
        TESSEL_INVALID_INPUT("--grid", 0, text + " needs " + need + " processes, the run has " + std::to_string(ranks));
    }
    g.p = static_cast<int>(p);
    g.q = static_cast<int>(q);
    return g;
}

}  // namespace tessel::abcd
