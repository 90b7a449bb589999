// A person's check of the rotation centre (TomoPy's write_center): one slice reconstructed by
// FBP at each trial centre (direct backprojection with the trial as the rotation axis, no
// operator, no resampling of the sinogram), a PNG per trial, a table of metrics and the pick:
// the trial with the smallest Vo metric (center_finding.hpp), never a range edge.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "apps/xct/fbp/fbp_filter.hpp"
#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/io/sinogram_source.hpp"
#include "core/backend.hpp"
#include "io/png_writer.hpp"

namespace tessel::xct {

/// Trial centres first, first + step, ... <= last.
struct CenterTrials {
    double first = 0, last = 0, step = 1;
    std::vector<double> centers() const;
};
/// "A:B:STEP" (STEP > 0, A <= B, at most 1000 trials). Throws InvalidInput "center-search: ...".
CenterTrials parse_center_trials(std::string_view text);

struct CenterTrialResult {
    double center = 0;
    /// Vo et al.'s sinogram metric at this centre (vo_metric_at): smaller is more consistent.
    /// Unlike the image metrics below it has one clear minimum at the axis on real data, where
    /// sharpness is flat to 0.5 % over 20 channels. NaN when the scan is not 180 degrees.
    double vo = 0;
    /// Shannon entropy (bits) of the 256-bin histogram of the image inside the reconstruction
    /// circle: a wrong centre smears edges into arcs and spreads the histogram (Donath et al.,
    /// J. Opt. Soc. Am. A 23, 1048 (2006)); smaller is better, but on small images it is noisy.
    double entropy = 0;
    /// Mean squared gradient over the mean squared value inside the circle: a wrong centre
    /// doubles edges into arcs of half the contrast. Larger is sharper; the table marks the
    /// sharpest. Trial centres between channels are interpolated and come out a little softer.
    double sharpness = 0;
    std::string png;
};

/// The image-quality numbers of one n x n image.
CenterTrialResult score_image(const std::vector<float>& image, size_type n);

/// FBP images (n x n, natural order) of one slice's unshifted sinogram (num_theta x num_rho,
/// as the detector saw it) with the rotation axis at each of `centers` (detector columns):
/// filtered once, backprojected once per centre on `backend` (cpu or cuda). Throws
/// InvalidInput (a centre outside [0, num_rho]), DimensionMismatch, what backproject_direct throws.
std::vector<std::vector<float>> fbp_at_centers(std::vector<float> sinogram, const Geometry& geometry,
                                               const std::vector<double>& centers, const FbpOptions& fbp,
                                               Backend backend = Backend::cpu);

/// The trial the gallery picks: smallest Vo metric (smallest entropy when Vo's metric is NaN).
/// at_edge: it is the first or last trial, so the minimum may lie outside the range.
struct CenterPick {
    std::size_t index = 0;
    bool at_edge = false;
    bool by_entropy = false;
};
CenterPick pick_center(const std::vector<CenterTrialResult>& rows);

/// Reconstructs absolute slice `slice` of `source` by FBP at every trial centre
/// (fbp_at_centers), writes dir/center_<c>.png (one colour range for all) and
/// dir/center_search.tsv (centre, vo, entropy, sharpness), prints the table to `log` and then
/// `picked centre: X` on a line of its own, or, when the best trial is a range edge,
/// `picked centre: none (...the range is too narrow...)`. Returns the rows. Throws InvalidInput
/// (a trial centre outside the detector), what the source and writers throw.
std::vector<CenterTrialResult> run_center_search(SinogramSource& source, size_type slice, const CenterTrials& trials,
                                                 const FbpOptions& fbp, const std::string& dir, io::Colormap colormap,
                                                 std::ostream& log, Backend backend = Backend::cpu);

}  // namespace tessel::xct
