// Stripe (ring artefact) removal on sinograms before reconstruction, two methods.
//
// Channel offsets (the default of --remove-stripes), in the manner of Rivers (1998, "Tutorial
// introduction to X-ray computed microtomography data processing") and Boin & Haibel (Opt.
// Express 14, 12071 (2006)), who compare each channel's mean over the angles with a smoothed
// profile across channels: here a channel's offset is the median over the angles of its value
// minus its neighbours' mean (object edges cross a channel at few angles, so the median skips
// them), and only the channels whose offset stands out `threshold` robust standard deviations
// are corrected, largest first, so clean channels are left as they are. On the sharp
// Shepp-Logan phantom with six stripes of 3-5 % of the peak the rings drop about 17x and a clean
// sinogram is unchanged (tests/xct/test_beamline.cpp). It assumes stripes that are there at
// most angles; channel 0 and the last are not corrected.
//
// Sorting (--stripe-method sorting), the method of
//   N. T. Vo, R. C. Atwood, M. Drakopoulos, "Superior techniques for eliminating ring artifacts
//   in X-ray micro-tomography", Opt. Express 26(22), 28396-28412 (2018), algorithm 3
// (TomoPy's remove_stripe_based_sorting): each channel's values are sorted over the angles, the
// sorted image is smoothed by a median across channels (a stripe is a channel whose sorted
// profile differs from its neighbours'), and the values are put back in their original order.
// It removes a stripe up to the local variation of the sorted profiles across channels, and
// alters clean channels where the object has edges sharper than the window: on the sharp
// Shepp-Logan phantom the rings drop about 3x (tests/xct/test_beamline.cpp; the paper shows it
// on measured data). It also corrects stripes present at only some angles.
#pragma once

#include <span>

#include "core/types.hpp"

namespace tessel::xct {

/// In place on `num_slices` sinograms of num_theta x num_rho values (slice-major). `size`:
/// width of the median window across channels (odd, >= 3; clamped to the channels; 0: 1% of the
/// channels, at least 5). OpenMP over slices.
/// Throws DimensionMismatch, InvalidInput (size below 3).
template <typename ValueType>
void remove_stripes_sorting(std::span<ValueType> sinograms, size_type num_slices, size_type num_theta,
                            size_type num_rho, size_type size = 0);

/// Throws DimensionMismatch "WHO: 10 values for 1 x 4 x 4" when a stack of sinograms is short.
void check_sinogram_stack(const char* who, size_type values, size_type num_slices, size_type num_theta,
                          size_type num_rho);

/// In place on `num_slices` sinograms (slice-major) by channel offsets (see above); `threshold`
/// in robust standard deviations of the offsets (default 9). OpenMP over slices.
/// Throws DimensionMismatch, InvalidInput (threshold not above 0).
template <typename ValueType>
void remove_stripe_offsets(std::span<ValueType> sinograms, size_type num_slices, size_type num_theta,
                           size_type num_rho, double threshold = 9.0);

}  // namespace tessel::xct
