// The rotation centre from the data of a 180° parallel-beam scan, by the Fourier method of
//   N. T. Vo, M. Drakopoulos, R. C. Atwood, C. Reinhard, "Reliable method for calculating the
//   center of rotation in parallel-beam tomography", Opt. Express 22(16), 19078-19086 (2014)
// (TomoPy's find_center_vo): the sinogram stacked with its mirror shifted by 2·(c - middle)
// is a consistent 360° sinogram only at the true centre c; there the energy of its 2-D
// spectrum in the double wedge |ω_ρ| < k·|ω_θ| (which a consistent sinogram leaves nearly
// empty) is smallest. Coarse search over whole shifts, then a fine one over sub-pixel shifts
// (Fourier phase, no smoothing) with a parabola through the best three.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "core/types.hpp"

namespace tessel::xct {

struct CenterSearchOptions {
    /// Coarse search radius around the detector middle in channels (0: min(50, cols/4)).
    double radius = 0;
    /// Fine search: ± this many channels around the coarse answer in steps of `fine_step`.
    double fine_radius = 1.5;
    double fine_step = 0.1;
    /// Angles used at most (evenly picked; the method needs the whole 180° but few angles).
    size_type max_angles = 360;
    /// When set (detector columns, as the result): no coarse search, the fine one around it
    /// (per-slice centres near the volume's).
    std::optional<double> around;
};

/// The rotation centre of one slice's sinogram (num_theta rows of num_rho channels, detector
/// order, not centre-shifted; rows in any angle order, θ in radians), in detector columns with
/// pixel edges at 0..num_rho (the convention of --center: num_rho/2 is the middle). Uses the
/// angles within 180° of the smallest. Throws InvalidInput when fewer than 8 angles or 16
/// channels, or when the angles do not cover at least 170°.
double find_center_vo(std::span<const float> sinogram, size_type num_theta, size_type num_rho,
                      const std::vector<double>& theta_radians, const CenterSearchOptions& options = {});

/// Vo's metric (the double-wedge energy above; smaller: more consistent) of one slice's
/// sinogram at each trial centre (detector columns, as find_center_vo's result), without a
/// search: what the centre gallery ranks its trials by. The same sinogram rules as
/// find_center_vo; throws InvalidInput as it does.
std::vector<double> vo_metric_at(std::span<const float> sinogram, size_type num_theta, size_type num_rho,
                                 const std::vector<double>& theta_radians, const std::vector<double>& centers,
                                 size_type max_angles = 360);

/// io::shift_center with Keys cubic interpolation instead of linear (no half-channel blur, so
/// that trial centres can be compared by eye and by sharpness): out[i] = in(i + center -
/// cols/2), edge values beyond the detector. Throws InvalidInput when center is outside [0, cols].
void shift_center_cubic(std::span<float> rows, size_type num_rows, size_type cols, double center);

}  // namespace tessel::xct
