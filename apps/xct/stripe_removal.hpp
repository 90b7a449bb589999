// Stripe (ring artefact) removal on sinograms before reconstruction, by the sorting-based
// method of
//   N. T. Vo, R. C. Atwood, M. Drakopoulos, "Superior techniques for eliminating ring artifacts
//   in X-ray micro-tomography", Opt. Express 26(22), 28396-28412 (2018), algorithm 3
// (TomoPy's remove_stripe_based_sorting): each channel's values are sorted over the angles, the
// sorted image is smoothed by a median across channels (a stripe is a channel whose sorted
// profile differs from its neighbours'), and the values are put back in their original order.
// It removes a stripe up to the local variation of the sorted profiles across channels, and
// alters clean channels where the object has edges sharper than the window: on the sharp
// Shepp-Logan phantom the rings drop about 3x (tests/xct/test_beamline.cpp; the paper shows it
// on measured data).
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

}  // namespace tessel::xct
