// How the driver's log writes numbers and names the method.
#pragma once

#include <string>

#include "apps/xct/driver/reconstruct_options.hpp"

namespace tessel::xct {

/// "cgls", "sirt", "fbp", "cgls from fbp".
std::string method_name(const ReconstructOptions& o);
/// "%.{digits}f" and "%.3e" for the log.
std::string fixed(double v, int digits);
std::string sci(double v);

}  // namespace tessel::xct
