// Vo et al. (2014) centre finding: mirrored, shifted sinogram stacked under the original; the
// 2-D FFT's magnitude summed over the double-wedge mask; coarse then fine search (sub-channel
// shifts by Fourier phase).
#include "apps/xct/preprocessing/center_finding.hpp"

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cmath>
#include <numbers>
#include <numeric>

#include "core/error.hpp"

namespace tessel::xct {

namespace {

constexpr double pi = std::numbers::pi;

/// Keys cubic convolution (a = -0.5) of row `in` at position `at`, edge values outside.
double cubic_at(const float* in, size_type n, double at) {
    const double f = std::floor(at);
    const double t = at - f;
    auto value = [&](long long i) { return double(in[std::clamp<long long>(i, 0, n - 1)]); };
    const long long i = static_cast<long long>(f);
    const double p0 = value(i - 1), p1 = value(i), p2 = value(i + 1), p3 = value(i + 2);
    return p1 + 0.5 * t * (p2 - p0 + t * (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3 + t * (3.0 * (p1 - p2) + p3 - p0)));
}

/// The sinogram of a search: rows sorted by angle within 180° of the first, at most
/// max_angles of them (evenly picked).
struct SearchSinogram {
    std::vector<float> values;
    size_type rows = 0, cols = 0;
};

SearchSinogram prepare(std::span<const float> sinogram, size_type num_theta, size_type num_rho,
                       const std::vector<double>& theta, size_type max_angles) {
    std::vector<size_type> order(static_cast<std::size_t>(num_theta));
    std::iota(order.begin(), order.end(), size_type{0});
    std::sort(order.begin(), order.end(), [&](size_type a, size_type b) { return theta[a] < theta[b]; });
    const double first = theta[order[0]];
    std::vector<size_type> half;
    for (size_type a : order)
        if (theta[a] < first + pi - 1e-9) half.push_back(a);
    const double span = theta[half.back()] - first;
    if (half.size() < 8 || num_rho < 16 || span < 170.0 * pi / 180.0)
        TESSEL_INVALID_INPUT("center", 0, "automatic centre finding needs a 180 degree scan of at least 8 angles and 16 "
                                          "channels (found " + std::to_string(half.size()) + " angles over " +
                                              std::to_string(span * 180.0 / pi) + " degrees, " +
                                              std::to_string(num_rho) + " channels)");
    const size_type stride = (static_cast<size_type>(half.size()) + max_angles - 1) / max_angles;
    SearchSinogram s;
    s.cols = num_rho;
    for (std::size_t i = 0; i < half.size(); i += static_cast<std::size_t>(stride)) {
        const float* row = sinogram.data() + half[i] * num_rho;
        s.values.insert(s.values.end(), row, row + num_rho);
        ++s.rows;
    }
    return s;
}

/// Σ|F| over the double wedge of the stacked (2·rows x cols) sinogram for one shift.
class Metric {
public:
    explicit Metric(const SearchSinogram& s)
        : s_(s), padded_(2 * s.cols), stacked_(static_cast<std::size_t>(2 * s.rows * s.cols)),
          spectrum_(fftw_alloc_complex(static_cast<std::size_t>(2 * s.rows * (s.cols / 2 + 1)))),
          line_(fftw_alloc_real(static_cast<std::size_t>(padded_))),
          line_spectrum_(fftw_alloc_complex(static_cast<std::size_t>(padded_ / 2 + 1))),
          mirrored_(static_cast<std::size_t>(s.rows * (padded_ / 2 + 1))) {
        plan_ = fftw_plan_dft_r2c_2d(int(2 * s.rows), int(s.cols), stacked_.data(), spectrum_, FFTW_ESTIMATE);
        forward_ = fftw_plan_dft_r2c_1d(int(padded_), line_, line_spectrum_, FFTW_ESTIMATE);
        inverse_ = fftw_plan_dft_c2r_1d(int(padded_), line_spectrum_, line_, FFTW_ESTIMATE);
        std::copy(s.values.begin(), s.values.end(), stacked_.begin());
        // Spectra of the mirrored rows, extended periodically without a jump (a linear ramp from
        // the last value back to the first) so that sub-channel shifts by phase do not ring.
        const size_type bins = padded_ / 2 + 1;
        for (size_type r = 0; r < s.rows; ++r) {
            const float* row = s.values.data() + r * s.cols;
            for (size_type j = 0; j < s.cols; ++j) line_[j] = row[s.cols - 1 - j];
            const double first = line_[0], last = line_[s.cols - 1];
            for (size_type j = s.cols; j < padded_; ++j)
                line_[j] = last + (first - last) * double(j - s.cols + 1) / double(padded_ - s.cols + 1);
            fftw_execute(forward_);
            for (size_type k = 0; k < bins; ++k)
                mirrored_[r * bins + k] = {line_spectrum_[k][0], line_spectrum_[k][1]};
        }
    }
    ~Metric() {
        fftw_destroy_plan(plan_);
        fftw_destroy_plan(forward_);
        fftw_destroy_plan(inverse_);
        fftw_free(spectrum_);
        fftw_free(line_);
        fftw_free(line_spectrum_);
    }
    Metric(const Metric&) = delete;
    Metric& operator=(const Metric&) = delete;

    /// Centre in channel-index units (channel c's centre at c).
    double operator()(double center_index) {
        const size_type rows = s_.rows, cols = s_.cols;
        const double shift = 2.0 * (center_index - 0.5 * double(cols - 1));
        // The mirrored rows stand for θ + π: out(i) = mirror(i - shift), mirror(j) = row(cols-1-j).
        // The whole part of the shift moves indices; the fraction is a phase ramp (exact for
        // band-limited rows: interpolating would smooth, and smoothing alone lowers the metric,
        // which would pull the answer towards quarter channels).
        const double whole = std::round(shift), fraction = shift - whole;
        const size_type line_bins = padded_ / 2 + 1;
        for (size_type r = 0; r < rows; ++r) {
            for (size_type k = 0; k < line_bins; ++k) {
                const double phase = -2.0 * pi * double(k) * fraction / double(padded_);
                const auto value = mirrored_[r * line_bins + k] * std::complex<double>(std::cos(phase), std::sin(phase));
                line_spectrum_[k][0] = value.real() / double(padded_);
                line_spectrum_[k][1] = value.imag() / double(padded_);
            }
            fftw_execute(inverse_);
            double* out = stacked_.data() + (rows + r) * cols;
            for (size_type i = 0; i < cols; ++i) {
                const auto at = std::clamp<long long>(static_cast<long long>(i) - static_cast<long long>(whole), 0,
                                                      static_cast<long long>(cols - 1));
                out[i] = line_[at];
            }
        }
        fftw_execute(plan_);
        const size_type n_rows = 2 * rows, bins = cols / 2 + 1;
        // Vo's mask (ratio 0.5): |k_ρ| <= |k_θ|·4(n_rows-1)/(2π n_rows), without the lowest
        // angular frequencies (drop) and the lowest channel frequencies.
        const double slope = 4.0 * double(n_rows - 1) / (2.0 * pi * double(n_rows));
        const size_type drop = std::min<size_type>(20, static_cast<size_type>(std::ceil(0.05 * double(n_rows))));
        double sum = 0;
        for (size_type i = 0; i < n_rows; ++i) {
            const size_type ki = i <= n_rows / 2 ? i : n_rows - i;
            if (ki <= drop) continue;
            const double limit = std::ceil(double(ki) * slope);
            for (size_type k = 2; k < bins && double(k) <= limit; ++k) {
                const fftw_complex& f = spectrum_[i * bins + k];
                sum += std::hypot(f[0], f[1]);
            }
        }
        return sum;
    }

private:
    const SearchSinogram& s_;
    size_type padded_;
    std::vector<double> stacked_;
    fftw_complex* spectrum_;
    double* line_;
    fftw_complex* line_spectrum_;
    std::vector<std::complex<double>> mirrored_;
    fftw_plan plan_, forward_, inverse_;
};

/// The minimum of a sampled metric, refined by a parabola through it and its neighbours.
double refined_minimum(const std::vector<double>& centers, const std::vector<double>& values) {
    const std::size_t best = std::min_element(values.begin(), values.end()) - values.begin();
    if (best == 0 || best + 1 == values.size()) return centers[best];
    const double a = values[best - 1], b = values[best], c = values[best + 1];
    const double denominator = a - 2.0 * b + c;
    const double step = centers[best + 1] - centers[best];
    const double offset = denominator > 0 ? 0.5 * (a - c) / denominator : 0.0;
    return centers[best] + std::clamp(offset, -0.5, 0.5) * step;
}

}  // namespace

void shift_center_cubic(std::span<float> rows, size_type num_rows, size_type cols, double center) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(rows.size()) == num_rows * cols,
                       "shift_center_cubic: " + std::to_string(rows.size()) + " values for " +
                           std::to_string(num_rows) + " rows of " + std::to_string(cols));
    if (!(center >= 0.0 && center <= double(cols)))
        TESSEL_INVALID_INPUT("center", 0, "rotation centre " + std::to_string(center) + " outside the detector [0, " +
                                              std::to_string(cols) + "]");
    const double shift = center - 0.5 * double(cols);
    std::vector<float> row(static_cast<std::size_t>(cols));
    for (size_type r = 0; r < num_rows; ++r) {
        float* values = rows.data() + r * cols;
        std::copy_n(values, cols, row.begin());
        for (size_type i = 0; i < cols; ++i)
            values[i] = static_cast<float>(cubic_at(row.data(), cols, std::clamp(double(i) + shift, 0.0, double(cols - 1))));
    }
}

double find_center_vo(std::span<const float> sinogram, size_type num_theta, size_type num_rho,
                      const std::vector<double>& theta, const CenterSearchOptions& options) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(sinogram.size()) == num_theta * num_rho &&
                           static_cast<size_type>(theta.size()) == num_theta,
                       "find_center_vo: sizes do not match " + std::to_string(num_theta) + " x " + std::to_string(num_rho));
    const SearchSinogram s = prepare(sinogram, num_theta, num_rho, theta, std::max<size_type>(8, options.max_angles));
    Metric metric(s);
    const double middle = 0.5 * double(num_rho - 1);
    const double radius = options.radius > 0 ? options.radius : std::min(50.0, 0.25 * double(num_rho));
    // Coarse: half-channel steps of the centre are whole-channel shifts of the mirror.
    std::vector<double> centers, values;
    double coarse = options.around ? *options.around - 0.5 : middle;
    if (!options.around) {
        for (double c = middle - radius; c <= middle + radius + 1e-9; c += 0.5) {
            centers.push_back(c);
            values.push_back(metric(c));
        }
        coarse = centers[std::min_element(values.begin(), values.end()) - values.begin()];
        centers.clear();
        values.clear();
    }
    const double step = std::max(0.01, options.fine_step);
    for (double d = -options.fine_radius; d <= options.fine_radius + 1e-9; d += step) {
        centers.push_back(coarse + d);
        values.push_back(metric(coarse + d));
    }
    // Channel index -> detector columns with edges at 0..num_rho.
    return refined_minimum(centers, values) + 0.5;
}

std::vector<double> vo_metric_at(std::span<const float> sinogram, size_type num_theta, size_type num_rho,
                                 const std::vector<double>& theta, const std::vector<double>& centers,
                                 size_type max_angles) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(sinogram.size()) == num_theta * num_rho &&
                           static_cast<size_type>(theta.size()) == num_theta,
                       "vo_metric_at: sizes do not match " + std::to_string(num_theta) + " x " + std::to_string(num_rho));
    const SearchSinogram s = prepare(sinogram, num_theta, num_rho, theta, std::max<size_type>(8, max_angles));
    Metric metric(s);
    std::vector<double> values;
    for (double c : centers) values.push_back(metric(c - 0.5));  // columns -> channel index
    return values;
}

}  // namespace tessel::xct
