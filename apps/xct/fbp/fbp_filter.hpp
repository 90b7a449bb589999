// Filtered backprojection's filter step: each sinogram row (one slice, one angle, all
// channels) convolved with a windowed ramp through FFTW, then weighted by the angular interval
// its angle covers. Backprojecting the result with the stored Aᵀ (unit pixels, unit channel
// spacing, Siddon lengths) gives the image in the phantom's units:
//   f(x) ≈ Σ_a w_a · (p_a * h)(x·θ_a),  Σ_a w_a = π,  ĥ(ω) = |ω|·window(ω)  (ω in cycles/channel).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "core/types.hpp"

namespace tessel::xct {

/// Windows of the ramp (u = frequency / (cut-off · Nyquist), zero beyond u = 1):
/// ramp 1, shepp-logan sin(πu/2)/(πu/2), cosine cos(πu/2), hamming 0.54 + 0.46·cos(πu),
/// hann 0.5 + 0.5·cos(πu) (the windows of scikit-image's iradon).
enum class FbpFilter { ramp, shepp_logan, cosine, hamming, hann };
std::string_view to_string(FbpFilter filter);
/// "ramp", "shepp-logan", "cosine", "hamming" or "hann"; throws InvalidInput "filter: ...".
FbpFilter parse_fbp_filter(std::string_view name);

struct FbpOptions {
    FbpFilter filter = FbpFilter::ramp;
    /// Cut-off as a fraction of the Nyquist frequency, in (0, 1].
    double cutoff = 1.0;
};

/// The angular interval each angle stands for: angles taken modulo π and sorted, each gets half
/// the gap to either neighbour (wrapping at π), so any order, uneven steps and 360° scans work;
/// the weights sum to π. Throws InvalidInput when fewer than one angle.
std::vector<double> angle_weights(const std::vector<double>& theta_radians);

/// The real frequency response of the filter for rows zero-padded to `padded` channels
/// (padded/2 + 1 values): the Fourier transform of the band-limited ramp's sampled kernel (no
/// DC offset, Kak & Slaney ch. 3), times the window. Throws InvalidInput on a bad cut-off.
std::vector<double> fbp_frequency_response(size_type padded, const FbpOptions& options);

/// In place on `num_rows` consecutive rows of `num_rho` values (row r has angle r mod
/// num_theta; the rows of several slices follow each other): filtered and multiplied by
/// angle_weights(theta)[r mod num_theta]. OpenMP over rows. Throws DimensionMismatch, InvalidInput.
template <typename ValueType>
void fbp_filter_rows(std::span<ValueType> rows, size_type num_rows, size_type num_rho,
                     const std::vector<double>& theta_radians, const FbpOptions& options);

}  // namespace tessel::xct
