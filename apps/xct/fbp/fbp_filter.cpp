// FBP filter: sampled ramp kernel -> FFTW frequency response x window, rows filtered with
// FFTW's new-array execute (thread-safe) on per-thread buffers.
#include "apps/xct/fbp/fbp_filter.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>

#include "core/error.hpp"

namespace tessel::xct {

namespace {

constexpr double pi = std::numbers::pi;

/// FFTW's planner is not thread-safe; plans are made under this lock.
std::mutex& planner_lock() {
    static std::mutex lock;
    return lock;
}

struct FftwBuffer {
    explicit FftwBuffer(std::size_t bytes) : data(fftw_malloc(bytes)) {
        if (!data) TESSEL_THROW(Error, "fbp: fftw_malloc failed");
    }
    ~FftwBuffer() { fftw_free(data); }
    FftwBuffer(const FftwBuffer&) = delete;
    FftwBuffer& operator=(const FftwBuffer&) = delete;
    double* real() const { return static_cast<double*>(data); }
    fftw_complex* complex() const { return static_cast<fftw_complex*>(data); }
    void* data;
};

/// A forward (r2c) and inverse (c2r) plan of one padded length.
struct RowPlans {
    explicit RowPlans(size_type padded) {
        std::lock_guard<std::mutex> guard(planner_lock());
        FftwBuffer real(sizeof(double) * padded), spectrum(sizeof(fftw_complex) * (padded / 2 + 1));
        forward = fftw_plan_dft_r2c_1d(int(padded), real.real(), spectrum.complex(), FFTW_ESTIMATE);
        inverse = fftw_plan_dft_c2r_1d(int(padded), spectrum.complex(), real.real(), FFTW_ESTIMATE);
        if (!forward || !inverse) TESSEL_THROW(Error, "fbp: FFTW could not plan a transform of " + std::to_string(padded));
    }
    ~RowPlans() {
        std::lock_guard<std::mutex> guard(planner_lock());
        fftw_destroy_plan(forward);
        fftw_destroy_plan(inverse);
    }
    RowPlans(const RowPlans&) = delete;
    RowPlans& operator=(const RowPlans&) = delete;
    fftw_plan forward = nullptr, inverse = nullptr;
};

double window(FbpFilter filter, double u) {
    switch (filter) {
    case FbpFilter::ramp: return 1.0;
    case FbpFilter::shepp_logan: return u == 0.0 ? 1.0 : std::sin(pi * u / 2) / (pi * u / 2);
    case FbpFilter::cosine: return std::cos(pi * u / 2);
    case FbpFilter::hamming: return 0.54 + 0.46 * std::cos(pi * u);
    case FbpFilter::hann: return 0.5 + 0.5 * std::cos(pi * u);
    }
    return 1.0;
}

/// Rows padded to a power of two of at least twice the channels (no wrap-around of the
/// convolution), at least 64.
size_type padded_length(size_type num_rho) {
    size_type p = 64;
    while (p < 2 * num_rho) p *= 2;
    return p;
}

}  // namespace

std::string_view to_string(FbpFilter filter) {
    switch (filter) {
    case FbpFilter::ramp: return "ramp";
    case FbpFilter::shepp_logan: return "shepp-logan";
    case FbpFilter::cosine: return "cosine";
    case FbpFilter::hamming: return "hamming";
    case FbpFilter::hann: return "hann";
    }
    return "ramp";
}

FbpFilter parse_fbp_filter(std::string_view name) {
    for (auto f : {FbpFilter::ramp, FbpFilter::shepp_logan, FbpFilter::cosine, FbpFilter::hamming, FbpFilter::hann})
        if (name == to_string(f)) return f;
    TESSEL_INVALID_INPUT("filter", 0,
                         "unknown filter '" + std::string(name) + "', expected ramp, shepp-logan, cosine, hamming or hann");
}

std::vector<double> angle_weights(const std::vector<double>& theta) {
    const std::size_t n = theta.size();
    if (n == 0) TESSEL_INVALID_INPUT("theta", 0, "no angles");
    std::vector<std::pair<double, std::size_t>> folded(n);
    for (std::size_t a = 0; a < n; ++a) {
        double t = std::fmod(theta[a], pi);
        if (t < 0) t += pi;
        folded[a] = {t, a};
    }
    std::sort(folded.begin(), folded.end());
    std::vector<double> weight(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double before = i > 0 ? folded[i].first - folded[i - 1].first : folded[0].first + pi - folded[n - 1].first;
        const double after = i + 1 < n ? folded[i + 1].first - folded[i].first : folded[0].first + pi - folded[i].first;
        weight[folded[i].second] = n == 1 ? pi : 0.5 * (before + after);
    }
    return weight;
}

std::vector<double> fbp_frequency_response(size_type padded, const FbpOptions& options) {
    if (!(options.cutoff > 0.0 && options.cutoff <= 1.0))
        TESSEL_INVALID_INPUT("filter-cutoff", 0, "cut-off " + std::to_string(options.cutoff) +
                                                     " outside (0, 1] (a fraction of the Nyquist frequency)");
    // The band-limited ramp sampled at unit spacing: h(0) = 1/4, h(odd n) = -1/(πn)², 0 else.
    FftwBuffer kernel(sizeof(double) * padded), spectrum(sizeof(fftw_complex) * (padded / 2 + 1));
    double* h = kernel.real();
    std::fill_n(h, padded, 0.0);
    h[0] = 0.25;
    for (size_type n = 1; n < padded / 2 + 1; n += 2) {
        const double value = -1.0 / (pi * pi * double(n) * double(n));
        h[n] = value;
        h[padded - n] = value;
    }
    {
        std::lock_guard<std::mutex> guard(planner_lock());
        fftw_plan plan = fftw_plan_dft_r2c_1d(int(padded), h, spectrum.complex(), FFTW_ESTIMATE);
        fftw_execute(plan);
        fftw_destroy_plan(plan);
    }
    std::vector<double> response(static_cast<std::size_t>(padded / 2 + 1));
    for (std::size_t k = 0; k < response.size(); ++k) {
        const double u = (double(k) / double(padded)) / (0.5 * options.cutoff);
        response[k] = u > 1.0 ? 0.0 : spectrum.complex()[k][0] * window(options.filter, u);
    }
    return response;
}

template <typename V>
void fbp_filter_rows(std::span<V> rows, size_type num_rows, size_type num_rho, const std::vector<double>& theta,
                     const FbpOptions& options) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(rows.size()) >= num_rows * num_rho,
                       "fbp_filter_rows: " + std::to_string(rows.size()) + " values for " + std::to_string(num_rows) +
                           " rows of " + std::to_string(num_rho));
    const auto weight = angle_weights(theta);
    const size_type num_theta = static_cast<size_type>(theta.size());
    const size_type padded = padded_length(num_rho);
    const auto response = fbp_frequency_response(padded, options);
    const RowPlans plans(padded);
    const std::size_t bins = response.size();
#pragma omp parallel
    {
        FftwBuffer real(sizeof(double) * padded), spectrum(sizeof(fftw_complex) * bins);
        double* line = real.real();
        fftw_complex* f = spectrum.complex();
#pragma omp for schedule(static)
        for (size_type r = 0; r < num_rows; ++r) {
            V* values = rows.data() + r * num_rho;
            std::fill_n(line, padded, 0.0);
            for (size_type c = 0; c < num_rho; ++c) line[c] = double(values[c]);
            fftw_execute_dft_r2c(plans.forward, line, f);
            for (std::size_t k = 0; k < bins; ++k) {
                f[k][0] *= response[k];
                f[k][1] *= response[k];
            }
            fftw_execute_dft_c2r(plans.inverse, f, line);
            // FFTW's inverse is unnormalised: divide by the length.
            const double scale = weight[r % num_theta] / double(padded);
            for (size_type c = 0; c < num_rho; ++c) values[c] = static_cast<V>(line[c] * scale);
        }
    }
}

template void fbp_filter_rows<float>(std::span<float>, size_type, size_type, const std::vector<double>&,
                                     const FbpOptions&);
template void fbp_filter_rows<double>(std::span<double>, size_type, size_type, const std::vector<double>&,
                                      const FbpOptions&);

}  // namespace tessel::xct
