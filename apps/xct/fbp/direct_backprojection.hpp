// Backprojection without the operator (filtered backprojection's second half, the centre
// gallery, Python's algorithm="fbp"): xct's geometry handed to core's pixel-driven kernel
// (core/kernels/backprojection.hpp, the geometry of the Siddon operator A, so that FBP and CGLS
// images line up pixel for pixel) on the backend asked for.
#pragma once

#include "apps/xct/geometry/geometry.hpp"
#include "core/backend.hpp"
#include "core/dense.hpp"

namespace tessel::xct {

/// image(iy·n + ix, j) := Σ_a s_j(a, u_a(ix, iy)), u_a = ρ + center - 0.5 the channel position
/// of the pixel centre at angle a, s_j interpolated linearly between channels and zero beyond
/// the detector. `sinograms` is rays x K in natural ray order a·num_rho + c, row-major (the K
/// slices side by side) or column-major (slice after slice), already filtered and weighted per
/// angle (fbp_filter_rows); `center` is the rotation axis in detector columns (num_rho/2 for
/// centre-shifted data). `image` is pixels x K in either layout. `backend` is cpu or cuda
/// (resolved: not automatic). Throws DimensionMismatch, InvalidInput (a centre that is not
/// finite, a backend that is not cpu or cuda), BackendUnavailable, CudaError.
template <typename ValueType>
void backproject_direct(DenseView<const ValueType> sinograms, const Geometry& geometry, double center,
                        DenseView<ValueType> image, Backend backend = Backend::cpu);

/// The same into an owned image, made pixels x K row-major.
template <typename ValueType>
void backproject_direct(const DenseMatrix<ValueType>& sinograms, const Geometry& geometry, double center,
                        DenseMatrix<ValueType>& image, Backend backend = Backend::cpu);

}  // namespace tessel::xct
