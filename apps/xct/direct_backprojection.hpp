// Backprojection without the operator (filtered backprojection's second half, the centre
// gallery, Python's algorithm="fbp"): every pixel centre projected onto the detector at every
// angle and the filtered sinogram interpolated linearly there (backprojection_geometry.hpp, the
// geometry of the Siddon operator A, so that FBP and CGLS images line up pixel for pixel).
#pragma once

#include "apps/xct/geometry.hpp"
#include "core/dense.hpp"

namespace tessel::xct {

/// image(iy·n + ix, j) := Σ_a s_j(a, u_a(ix, iy)), u_a = ρ + center - 0.5 the channel position
/// of the pixel centre at angle a, s_j interpolated linearly between channels and zero beyond
/// the detector. `sinograms` is rays x K (row-major, natural ray order a·num_rho + c: the K
/// slices side by side), already filtered and weighted per angle (fbp_filter_rows); `center`
/// is the rotation axis in detector columns (num_rho/2 for centre-shifted data). OpenMP over
/// image rows, SIMD over the slices (or over the pixels of a row for K = 1). `image` becomes
/// pixels x K. Throws DimensionMismatch, InvalidInput (a centre that is not finite).
template <typename ValueType>
void backproject_direct(const DenseMatrix<ValueType>& sinograms, const Geometry& geometry, double center,
                        DenseMatrix<ValueType>& image);

}  // namespace tessel::xct
