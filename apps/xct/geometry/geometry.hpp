// Parallel-beam geometry of MemXCT (docs/xct.md, "Geometry and the projection operator"):
// image box, channels, angles.
#pragma once

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel::xct {

/// An n x n image of unit pixels spanning [-n/2, n/2) in x and y (pixel (ix, iy) has index
/// iy·n + ix and covers [-n/2 + ix, -n/2 + ix + 1) x [-n/2 + iy, -n/2 + iy + 1)), and
/// num_theta x num_rho rays: the ray (a, c) is the line {x·cosθ_a + y·sinθ_a = ρ_c} with
/// channel centres ρ_c = -num_rho/2 + 0.5 + c. Ray index a·num_rho + c (θ-major, as in the
/// MemXCT sinogram files).
struct Geometry {
    size_type n = 0;
    size_type num_rho = 0;
    std::vector<double> theta;  // radians

    size_type num_theta() const { return static_cast<size_type>(theta.size()); }
    size_type num_pixels() const { return n * n; }
    size_type num_rays() const { return num_theta() * num_rho; }
    double rho(size_type channel) const { return -0.5 * double(num_rho) + 0.5 + double(channel); }

    /// Throws InvalidInput when a size is below 1, no angle is given, an angle is not finite
    /// or n·n does not fit a 32-bit column index.
    void validate() const;
    /// "256 x 256 image, 384 angles x 256 channels".
    std::string describe() const;
};

/// `count` angles equally spaced over [0, π): θ_a = π·a/count.
std::vector<double> uniform_angles(size_type count);

}  // namespace tessel::xct
