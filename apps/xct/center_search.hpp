// A person's check of the rotation centre (TomoPy's write_center): one slice reconstructed by
// FBP at each trial centre (all trials as the columns of one SpMM with Aᵀ), a PNG per trial
// and a table of an image-sharpness metric.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "apps/xct/fbp_filter.hpp"
#include "apps/xct/ordering.hpp"
#include "apps/xct/projector.hpp"
#include "apps/xct/sinogram_source.hpp"
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

/// Reconstructs absolute slice `slice` of `source` by FBP at every trial centre on this rank
/// (local A and Aᵀ of `geometry`, any number of columns), writes dir/center_<c>.png (one colour
/// range for all) and dir/center_search.tsv (centre, entropy, sharpness), prints the table to
/// `log` with the sharpest marked. Returns the rows. Throws InvalidInput (a trial centre
/// outside the detector), what the source and writers throw.
template <typename ValueType>
std::vector<CenterTrialResult> run_center_search(SinogramSource& source, size_type slice, const CenterTrials& trials,
                                                 const Ordering& ordering, const ProjectorOptions& projector,
                                                 const FbpOptions& fbp, const std::string& dir, io::Colormap colormap,
                                                 std::ostream& log);

}  // namespace tessel::xct
