// Pixel-driven backprojection of parallel-beam sinograms: filtered backprojection's second half
// (xct's --solver fbp, its centre gallery, Python's algorithm="fbp"). Every pixel centre is
// projected onto the detector at every angle and the sinogram interpolated linearly there, in
// the geometry of xct's Siddon operator (backprojection_geometry.hpp). cpu and cuda twins; the
// cpu kernel is the one the cuda kernel is tested against, itself tested against the naive loop
// (tests/core/test_backprojection.cpp).
#pragma once

#include <span>
#include <vector>

#include "core/dense.hpp"
#include "core/kernels/backprojection_geometry.hpp"
#include "core/types.hpp"

namespace tessel {

/// A parallel-beam scan as the backprojection reads it: an n x n image, num_rho channels per
/// angle, the angles in radians, and the rotation axis in detector columns (num_rho/2 for
/// centre-shifted data).
struct ParallelBeam {
    size_type n = 0;
    size_type num_rho = 0;
    std::span<const double> theta;
    double center = 0;

    size_type num_theta() const { return static_cast<size_type>(theta.size()); }
    size_type num_rays() const { return num_theta() * num_rho; }
    size_type num_pixels() const { return n * n; }
};

namespace backprojection {

/// Throws DimensionMismatch unless sinograms is num_rays x K and image num_pixels x K (any
/// layouts), InvalidInput when the centre is not finite; `who` starts the message.
template <typename ValueType>
void check_arguments(const char* who, DenseView<const ValueType> sinograms, const ParallelBeam& scan,
                     DenseView<ValueType> image);

/// The channel position of the first pixel of every image row at every angle, angle-major
/// (entry a·n + iy), rounded to ValueType: both backends read the same positions.
template <typename ValueType>
std::vector<ValueType> row_starts(const ParallelBeam& scan);

/// The step between neighbouring pixels of a row at every angle (cosθ), rounded to ValueType.
template <typename ValueType>
std::vector<ValueType> row_steps(const ParallelBeam& scan);

}  // namespace backprojection

namespace cpu {

/// image(iy·n + ix, j) := Σ_a s_j(a, u_a(ix, iy)), u_a = first(a, iy) + ix·step(a) the channel
/// position of the pixel centre at angle a (backprojection::row_starts, row_steps), s_j slice
/// j's sinogram row (sinograms(a·num_rho + c, j), the natural ray order) interpolated linearly
/// between channels and zero beyond the detector. Sinograms and image may be row-major (the K
/// slices side by side) or column-major (slice after slice). Angles are summed in order for
/// every pixel: the result does not depend on threads or K. OpenMP over blocks of image rows,
/// SIMD over the slices (over the pixels of a row for K = 1). Throws as check_arguments.
template <typename ValueType>
void backproject(DenseView<const ValueType> sinograms, const ParallelBeam& scan, DenseView<ValueType> image);

}  // namespace cpu

namespace cuda {

/// cpu::backproject on the device: the sinograms uploaded, one thread per (pixel, slice), the
/// image downloaded (host arrays in and out). Throws as check_arguments, CudaError, and
/// NotCompiled in builds without CUDA.
template <typename ValueType>
void backproject(DenseView<const ValueType> sinograms, const ParallelBeam& scan, DenseView<ValueType> image);

}  // namespace cuda

}  // namespace tessel
