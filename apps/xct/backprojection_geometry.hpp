// Pixel-driven backprojection geometry shared by the cpu loop and a cuda kernel: where the
// centre of pixel (ix, iy) meets the detector at angle θ, and the two channels that interpolate
// it. Plain C++ (no std:: containers, no exceptions) so that device code can include it. The
// conventions are geometry.hpp's, those of the Siddon operator A: pixel (ix, iy) covers
// [-n/2 + ix, -n/2 + ix + 1) x [-n/2 + iy, ...), the ray (θ, ρ) is x·cosθ + y·sinθ = ρ, and a
// detector with its rotation axis at column `center` (edges at 0..num_rho) has channel c's
// centre at ρ_c = c + 0.5 - center (center = num_rho/2 gives geometry.hpp's ρ_c).
#pragma once

#if defined(__CUDACC__)
#define TESSEL_XCT_HOST_DEVICE __host__ __device__
#else
#define TESSEL_XCT_HOST_DEVICE
#endif

namespace tessel::xct::backprojection {

/// Channel positions along one image row at one angle: pixel (ix, iy) projects to the
/// fractional channel index u = first + ix·step (channel c's centre at u = c).
struct RowPositions {
    double first;
    double step;
};

/// x (or y) of the centre of pixel column (row) i of an n-pixel image: -n/2 + i + 0.5.
TESSEL_XCT_HOST_DEVICE inline double pixel_centre(long long n, long long i) {
    return -0.5 * double(n) + double(i) + 0.5;
}

/// The channel positions of image row iy at the angle with cosθ = cos_t, sinθ = sin_t:
/// u = ρ + center - 0.5 with ρ = x·cosθ + y·sinθ at the pixel centre.
TESSEL_XCT_HOST_DEVICE inline RowPositions row_positions(long long n, long long iy, double cos_t, double sin_t,
                                                         double center) {
    const double x0 = pixel_centre(n, 0), y = pixel_centre(n, iy);
    return {x0 * cos_t + y * sin_t + center - 0.5, cos_t};
}

/// Linear interpolation on a row padded with one zero channel on each side (padded index
/// j = c + 1, num_rho + 2 entries): the value at channel position u is
/// (1 - w)·row[left] + w·row[left + 1]. Positions beyond the detector land on the zero ends,
/// so the loop needs no branch: u is clamped to [-1, num_rho] first.
template <typename Real>
TESSEL_XCT_HOST_DEVICE inline void padded_sample(Real u, long long num_rho, long long* left, Real* w) {
    Real p = u + Real(1);
    p = p < Real(0) ? Real(0) : (p > Real(num_rho + 1) ? Real(num_rho + 1) : p);
    long long l = static_cast<long long>(p);  // p >= 0: truncation is floor
    if (l > num_rho) l = num_rho;
    *left = l;
    *w = p - Real(l);
}

}  // namespace tessel::xct::backprojection
