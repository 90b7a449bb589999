// Shepp-Logan phantoms (2-D and 3-D, modified contrast) and Poisson noise for sinograms.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/types.hpp"

namespace tessel::xct {

/// The modified Shepp-Logan phantom (Toft's contrast: values 0 .. 1) on an n x n grid,
/// row-major, index iy·n + ix with pixel centres at the coordinates of geometry.hpp. The
/// phantom's own y axis points to decreasing iy, so that row 0 printed first shows the top
/// of the head. The ellipses fill the unit disc scaled to the image half-width.
std::vector<float> shepp_logan_2d(size_type n);

/// Slice z of the modified 3-D Shepp-Logan phantom (ellipsoids of Kak & Slaney with Toft's
/// contrast) sampled on an n x n grid; z in [-1, 1] (0 is the centre; the 2-D phantom is
/// close to z = 0).
std::vector<float> shepp_logan_3d_slice(size_type n, double z);

/// The 3-D phantom's value at (x, y, z) in the phantom's own axes: pixel (ix, iy) of
/// shepp_logan_3d_slice(n, z) is this value at (x_ix, -x_iy, z), x_i = (i + 0.5 - n/2)/(n/2).
double shepp_logan_3d_value(double x, double y, double z);

/// `slices` images of n x n: the 2-D phantom when slices == 1, else slices of the 3-D phantom
/// at z_s = (2s + 1)/slices - 1 (the whole head from bottom to top), laid out (slices, n, n).
std::vector<float> shepp_logan_volume(size_type n, size_type slices);

/// Replaces every line integral p of `sinogram` by a noisy one: counts ~ Poisson(I0·e^(-p·scale)),
/// p := -log(max(counts, 1)/I0)/scale, with scale = 2/max(p) (the most attenuating ray
/// transmits e^-2). `index0` is the global index of the first value: the noise of a value
/// depends only on (seed, its global index), so it does not depend on how the sinogram is
/// split among ranks. Throws InvalidInput when photons <= 0.
void add_poisson_noise(std::span<float> sinogram, double photons, std::uint64_t seed,
                       std::int64_t index0 = 0, double max_line_integral = -1.0);

/// One noisy line integral: the transformation of add_poisson_noise for the value p with the
/// given maximum line integral and the generator keyed by (seed, index).
double noisy_line_integral(double p, double photons, double max_line_integral, std::uint64_t seed,
                           std::uint64_t index);

/// Same with double values.
void add_poisson_noise(std::span<double> sinogram, double photons, std::uint64_t seed,
                       std::int64_t index0 = 0, double max_line_integral = -1.0);

/// Peak signal-to-noise ratio in dB of `image` against `truth`: 10·log10(range²/MSE) with
/// range = max(truth) - min(truth). Infinite when they are equal.
double psnr(std::span<const float> image, std::span<const float> truth);

}  // namespace tessel::xct
