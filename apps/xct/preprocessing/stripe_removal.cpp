// Sorting-based stripe removal (Vo et al. 2018, algorithm 3): sort each channel over the
// angles, median across channels, unsort.
#include "apps/xct/preprocessing/stripe_removal.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/error.hpp"

namespace tessel::xct {

namespace {

/// One sinogram (rows = angles, cols = channels) through the steps.
template <typename V>
void remove_one(V* sino, size_type rows, size_type cols, size_type half) {
    // Column-major copies: sorted values and where each came from.
    std::vector<V> sorted(static_cast<std::size_t>(rows * cols));
    std::vector<size_type> origin(sorted.size());
    std::vector<size_type> index(static_cast<std::size_t>(rows));
    for (size_type c = 0; c < cols; ++c) {
        std::iota(index.begin(), index.end(), size_type{0});
        std::stable_sort(index.begin(), index.end(),
                         [&](size_type a, size_type b) { return sino[a * cols + c] < sino[b * cols + c]; });
        for (size_type r = 0; r < rows; ++r) {
            sorted[c * rows + r] = sino[index[r] * cols + c];
            origin[c * rows + r] = index[r];
        }
    }
    // Median across channels of each sorted row, edges clamped (scipy's mode 'nearest').
    std::vector<V> smooth(sorted.size());
    std::vector<V> window(static_cast<std::size_t>(2 * half + 1));
    for (size_type r = 0; r < rows; ++r)
        for (size_type c = 0; c < cols; ++c) {
            for (size_type d = 0; d < 2 * half + 1; ++d) {
                const size_type at = std::clamp<size_type>(c + d - half, 0, cols - 1);
                window[d] = sorted[at * rows + r];
            }
            std::nth_element(window.begin(), window.begin() + half, window.end());
            smooth[c * rows + r] = window[half];
        }
    for (size_type c = 0; c < cols; ++c)
        for (size_type r = 0; r < rows; ++r) sino[origin[c * rows + r] * cols + c] = smooth[c * rows + r];
}

}  // namespace

void check_sinogram_stack(const char* who, size_type values, size_type num_slices, size_type num_theta,
                          size_type num_rho) {
    TESSEL_ENSURE_DIMS(values >= num_slices * num_theta * num_rho,
                       std::string(who) + ": " + std::to_string(values) + " values for " + std::to_string(num_slices) +
                           " x " + std::to_string(num_theta) + " x " + std::to_string(num_rho));
}

template <typename V>
void remove_stripes_sorting(std::span<V> sinograms, size_type num_slices, size_type num_theta, size_type num_rho,
                            size_type size) {
    check_sinogram_stack("remove_stripes_sorting", static_cast<size_type>(sinograms.size()), num_slices, num_theta,
                         num_rho);
    if (size != 0 && size < 3)
        TESSEL_INVALID_INPUT("stripe-size", 0, "median window " + std::to_string(size) + " is below 3");
    // An odd window no wider than the detector; automatic: 1% of the channels, at least 5
    // (Vo's 21 for 2k detectors).
    if (size == 0) size = std::max<size_type>(5, num_rho / 100);
    const size_type half = std::max<size_type>(1, std::min(size, num_rho) / 2);
#pragma omp parallel for schedule(dynamic)
    for (size_type s = 0; s < num_slices; ++s)
        remove_one(sinograms.data() + s * num_theta * num_rho, num_theta, num_rho, half);
}

template void remove_stripes_sorting<float>(std::span<float>, size_type, size_type, size_type, size_type);
template void remove_stripes_sorting<double>(std::span<double>, size_type, size_type, size_type, size_type);

}  // namespace tessel::xct
