// Stripe removal by channel offsets: a stripe is a channel reading a constant amount too high
// or low at every angle, found and measured against its two neighbours.
#include "apps/xct/preprocessing/stripe_removal.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace tessel::xct {

namespace {

/// One sinogram (rows = angles, cols = channels) and each channel's offset against its
/// neighbours: the median over angles of s(c) - (s(c-1) + s(c+1)) / 2. An object edge crosses a
/// channel at few angles, so the median ignores it; a stripe is there at every angle.
template <typename V>
class ChannelOffsets {
public:
    ChannelOffsets(V* sino, size_type rows, size_type cols)
        : sino_(sino), rows_(rows), cols_(cols), column_(static_cast<std::size_t>(rows)),
          offset_(static_cast<std::size_t>(cols), 0.0) {
        for (size_type c = 0; c < cols; ++c) offset_[c] = measure(c);
    }

    /// The median of |offset| over channels as a robust standard deviation (1.4826 x MAD).
    double spread() const {
        std::vector<double> magnitude(offset_.size());
        std::transform(offset_.begin(), offset_.end(), magnitude.begin(), [](double d) { return std::abs(d); });
        const auto middle = magnitude.begin() + static_cast<std::ptrdiff_t>(magnitude.size() / 2);
        std::nth_element(magnitude.begin(), middle, magnitude.end());
        return 1.4826 * *middle;
    }

    /// The channel whose offset is largest in magnitude.
    size_type largest() const {
        const auto at = std::max_element(offset_.begin(), offset_.end(),
                                         [](double a, double b) { return std::abs(a) < std::abs(b); });
        return static_cast<size_type>(at - offset_.begin());
    }

    double offset(size_type c) const { return offset_[c]; }

    /// Subtracts channel c's offset from it and measures it and its neighbours again.
    void correct(size_type c) {
        const auto amount = static_cast<V>(offset_[c]);
        for (size_type r = 0; r < rows_; ++r) sino_[r * cols_ + c] -= amount;
        for (size_type n = c > 0 ? c - 1 : 0; n <= std::min(cols_ - 1, c + 1); ++n) offset_[n] = measure(n);
    }

private:
    double measure(size_type c) {
        if (c == 0 || c + 1 >= cols_) return 0.0;  // no neighbour on one side
        const V* s = sino_ + c;
        for (size_type r = 0; r < rows_; ++r, s += cols_) column_[r] = double(s[0]) - 0.5 * (double(s[-1]) + double(s[1]));
        const auto middle = column_.begin() + static_cast<std::ptrdiff_t>(rows_ / 2);
        std::nth_element(column_.begin(), middle, column_.end());
        return *middle;
    }

    V* sino_;
    size_type rows_, cols_;
    std::vector<double> column_, offset_;
};

/// Largest offset first (a stripe also shows at its neighbours as minus half its offset), while
/// it stands out `threshold` robust standard deviations. The spread is at least 1e-5 of the
/// largest value: noise-free data of a small object has no spread over the empty channels.
template <typename V>
void remove_one(V* sino, size_type rows, size_type cols, double threshold) {
    ChannelOffsets<V> offsets(sino, rows, cols);
    double peak = 0;
    for (size_type i = 0; i < rows * cols; ++i) peak = std::max(peak, std::abs(double(sino[i])));
    const double limit = threshold * std::max(offsets.spread(), 1e-5 * peak);
    for (size_type step = 0; step < cols; ++step) {
        const size_type c = offsets.largest();
        if (!(std::abs(offsets.offset(c)) > limit)) return;
        offsets.correct(c);
    }
}

}  // namespace

template <typename V>
void remove_stripe_offsets(std::span<V> sinograms, size_type num_slices, size_type num_theta, size_type num_rho,
                           double threshold) {
    check_sinogram_stack("remove_stripe_offsets", static_cast<size_type>(sinograms.size()), num_slices, num_theta,
                         num_rho);
    if (!(threshold > 0) || !std::isfinite(threshold))
        TESSEL_INVALID_INPUT("stripe-threshold", 0, "'" + std::to_string(threshold) + "' is not a number above 0");
    if (num_theta == 0 || num_rho < 3) return;
#pragma omp parallel for schedule(dynamic)
    for (size_type s = 0; s < num_slices; ++s)
        remove_one(sinograms.data() + s * num_theta * num_rho, num_theta, num_rho, threshold);
}

template void remove_stripe_offsets<float>(std::span<float>, size_type, size_type, size_type, double);
template void remove_stripe_offsets<double>(std::span<double>, size_type, size_type, size_type, double);

}  // namespace tessel::xct
