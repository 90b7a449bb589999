// How the driver's log writes numbers and names the method (log_text.hpp).
#include "apps/xct/driver/log_text.hpp"

#include <cstdio>

namespace tessel::xct {

std::string fixed(double v, int digits) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", digits, v);
    return text;
}

std::string sci(double v) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.3e", v);
    return text;
}

std::string method_name(const ReconstructOptions& o) {
    if (o.fbp) return "fbp";
    return std::string(to_string(o.solver.algorithm)) + (o.init_fbp ? " from fbp" : "");
}

}  // namespace tessel::xct
