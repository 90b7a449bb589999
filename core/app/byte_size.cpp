// Byte sizes: one parser and one printer for every program.
#include "core/app/byte_size.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"

namespace tessel::app {

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (std::abs(bytes) >= 1024 && u < 6) {
        bytes /= 1024;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

double parse_bytes(const std::string& text, const std::string& what) {
    const std::string example = " (for example 2G or 512M)";
    // strtod, not stod: no exception, and "inf"/"nan" are refused below as not finite.
    const char* begin = text.c_str();
    char* end = nullptr;
    const double value = text.empty() || std::isspace(static_cast<unsigned char>(text[0]))
                             ? 0.0 : std::strtod(begin, &end);
    if (end == nullptr || end == begin)
        TESSEL_INVALID_INPUT(what, 0, "'" + text + "' is not a size in bytes" + example);
    std::string unit(end);
    for (auto& ch : unit) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const std::string units = "bkmgtp";
    const auto power = unit.empty() ? 0 : units.find(unit[0]);
    const std::string suffix = unit.empty() ? "" : unit.substr(1);
    const bool plain = unit.empty() || unit == "b";
    if (!plain && (power == std::string::npos || power == 0 || !(suffix.empty() || suffix == "b" || suffix == "ib")))
        TESSEL_INVALID_INPUT(what, 0, "'" + text + "': unknown unit '" + unit + "' (use K, M, G or T)");
    if (!std::isfinite(value)) TESSEL_INVALID_INPUT(what, 0, "'" + text + "' is not a finite size" + example);
    if (!(value > 0)) TESSEL_INVALID_INPUT(what, 0, "'" + text + "' must be positive");
    const double bytes = std::ldexp(value, plain ? 0 : 10 * static_cast<int>(power));
    if (bytes > std::ldexp(1.0, 62)) TESSEL_INVALID_INPUT(what, 0, "'" + text + "' is beyond 4 EiB");
    return bytes;
}

}  // namespace tessel::app
