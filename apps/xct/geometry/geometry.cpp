// Parallel-beam geometry: validation and angle sets.
#include "apps/xct/geometry/geometry.hpp"

#include <cstdint>
#include <limits>

#include "core/error.hpp"

namespace tessel::xct {

void Geometry::validate() const {
    if (n < 1) TESSEL_INVALID_INPUT("geometry", 0, "image size " + std::to_string(n) + " is below 1");
    if (num_rho < 1)
        TESSEL_INVALID_INPUT("geometry", 0, "channel count " + std::to_string(num_rho) + " is below 1");
    if (theta.empty()) TESSEL_INVALID_INPUT("geometry", 0, "no projection angles");
    if (n * n > std::numeric_limits<std::int32_t>::max() ||
        num_rays() > std::numeric_limits<std::int32_t>::max())
        TESSEL_INVALID_INPUT("geometry", 0,
                             "image of " + std::to_string(n) + " x " + std::to_string(n) + " or " +
                                 std::to_string(num_rays()) + " rays exceeds 32-bit indices");
    for (std::size_t a = 0; a < theta.size(); ++a)
        if (!std::isfinite(theta[a]))
            TESSEL_INVALID_INPUT("theta", static_cast<std::int64_t>(a), "angle is not finite");
}

std::string Geometry::describe() const {
    return std::to_string(n) + " x " + std::to_string(n) + " image, " + std::to_string(num_theta()) +
           " angles x " + std::to_string(num_rho) + " channels";
}

std::vector<double> uniform_angles(size_type count) {
    std::vector<double> theta(static_cast<std::size_t>(std::max<size_type>(count, 0)));
    for (size_type a = 0; a < count; ++a) theta[a] = std::numbers::pi * double(a) / double(count);
    return theta;
}

}  // namespace tessel::xct
