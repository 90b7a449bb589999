// The shape of a MemXCT raw sinogram (FORMATS.md §2: no header). The angle count comes from
// the theta file; slices and channels from the options and the file size, cross-checked: an
// explicit --channels must agree with the size exactly, and a derived channel count is refused
// when every row looks like several consecutive projections (too few angles in the theta
// file, or too few --num-slices, make each row hold 2, 3 or 4 projections).
#pragma once

#include <string>

#include "core/types.hpp"

namespace tessel::xct {

struct RawShape {
    size_type slices = 0;
    size_type channels = 0;
};

/// The slices and channels of the raw sinogram at `path` with `num_theta` angles (from
/// `theta_path`). num_slices / channels: as given (0: not given). Throws InvalidInput naming the
/// file with the sizes that disagree.
RawShape raw_shape(const std::string& path, const std::string& theta_path, size_type num_theta,
                   size_type num_slices, size_type channels);

/// How alike `parts` consecutive pieces of every row are (1 - Σ|p_i - p_i+1|² / Σ(|p_i|² + |p_i+1|²)):
/// near 1 when each row of `cols` values is `parts` copies of nearly one projection, far below
/// for true projections (0.36 for halves of the Shepp-Logan phantom's, about 0 for noise);
/// 0 when the rows are all zero. values: rows x cols.
double repeated_parts(const float* values, size_type rows, size_type cols, int parts);

}  // namespace tessel::xct
