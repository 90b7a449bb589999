// Pixel-driven backprojection geometry shared by the cpu loop and the cuda kernel
// (core/kernels/backprojection.hpp): where the centre of pixel (ix, iy) meets the detector at
// angle θ, and the two channels that interpolate it. Plain C++ (no std:: containers, no
// exceptions) so that device code can include it. The conventions are those of xct's Siddon
// operator A (apps/xct/geometry.hpp), so that FBP and CGLS images line up pixel for pixel:
// pixel (ix, iy) covers [-n/2 + ix, -n/2 + ix + 1) x [-n/2 + iy, ...), the ray (θ, ρ) is
// x·cosθ + y·sinθ = ρ, and a detector with its rotation axis at column `center` (edges at
// 0..num_rho) has channel c's centre at ρ_c = c + 0.5 - center (center = num_rho/2 gives
// geometry.hpp's ρ_c).
#pragma once

#include "core/host_device.hpp"

namespace tessel::backprojection {

/// Channel positions along one image row at one angle: pixel (ix, iy) projects to the
/// fractional channel index u = first + ix·step (channel c's centre at u = c).
template <typename Real>
struct RowPositions {
    Real first;
    Real step;
};

/// x (or y) of the centre of pixel column (row) i of an n-pixel image: -n/2 + i + 0.5.
TESSEL_HOST_DEVICE inline double pixel_centre(long long n, long long i) {
    return -0.5 * double(n) + double(i) + 0.5;
}

/// The channel positions of image row iy at the angle with cosθ = cos_t, sinθ = sin_t:
/// u = ρ + center - 0.5 with ρ = x·cosθ + y·sinθ at the pixel centre.
TESSEL_HOST_DEVICE inline RowPositions<double> row_positions(long long n, long long iy, double cos_t, double sin_t,
                                                             double center) {
    const double x0 = pixel_centre(n, 0), y = pixel_centre(n, iy);
    return {x0 * cos_t + y * sin_t + center - 0.5, cos_t};
}

/// Linear interpolation on a row padded with one zero channel on each side (padded index
/// j = c + 1, num_rho + 2 entries): the value at channel position u is
/// (1 - w)·row[left] + w·row[left + 1]. Positions beyond the detector land on the zero ends,
/// so the loop needs no branch: u is clamped to [-1, num_rho] first.
template <typename Real, typename Index>
TESSEL_HOST_DEVICE inline void padded_sample(Real u, Index num_rho, Index* left, Real* w) {
    const Real highest = Real(num_rho + 1);
    Real p = u + Real(1);
    p = p > Real(0) ? p : Real(0);  // selects, not branches: the cpu loop over pixels vectorises
    p = p < highest ? p : highest;
    Index l = static_cast<Index>(p);  // p >= 0: truncation is floor
    l = l < num_rho ? l : num_rho;
    *left = l;
    *w = p - Real(l);
}

/// (1 - w)·at_left + w·at_right, written as both backends evaluate it (one fused multiply-add
/// where the compiler contracts), so that they round alike.
template <typename Real>
TESSEL_HOST_DEVICE inline Real interpolate(Real at_left, Real at_right, Real w) {
    return at_left + w * (at_right - at_left);
}

}  // namespace tessel::backprojection
