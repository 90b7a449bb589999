// A Data Exchange file as a beamline writes it, of a sample that turns about a detector column
// that is not the middle one (the real file of the centre-gallery issue: 640 channels, axis at
// 296.3). The line integrals are exact (ellipses projected analytically, no pixel grid and no
// resampling, so nothing favours the detector's middle); uint16 counts with Poisson-like
// noise, a non-uniform beam and pixel gains in both the flats and the projections, a drifting
// flux the flats do not see, noisy darks, hot pixels, angles 0..180 degrees with 180 included.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "apps/xct/io/exchange_writer.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::xct::test {

struct RotatedSampleSpec {
    size_type cols = 640, rows = 4;
    size_type angles = 361;     // 0, 0.5, ..., 180 degrees: the last angle repeats the first, mirrored
    double axis = 296.3;        // rotation axis in detector columns (pixel edges at 0..cols)
    double white = 30000;       // open-beam counts at the beam's peak
    double dark = 100;
    size_type num_white = 10, num_dark = 10;
    size_type hot_pixels = 40;  // zingers: single pixels of single projections saturated
    std::uint64_t seed = 7;
};

namespace rotated_sample_detail {

// splitmix64: the same numbers on every platform (std:: distributions differ between libraries).
struct Random {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    double uniform(double low, double high) { return low + (high - low) * uniform(); }
    double normal() {  // Box-Muller
        const double u = std::max(uniform(), 1e-300), v = uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
    }
    // Poisson-like counts: Gaussian with the Poisson variance (means are hundreds or more).
    double counts(double mean) { return std::max(0.0, std::round(mean + std::sqrt(mean) * normal())); }
};

// An ellipse of attenuation mu (per channel), centre relative to the rotation axis, in channels.
struct Ellipse {
    double mu, a, b, x0, y0, phi;
};

// Exact line integral of the ellipses along x·cosθ + y·sinθ = rho.
inline double project(const std::vector<Ellipse>& sample, double theta, double rho) {
    double p = 0;
    for (const auto& e : sample) {
        const double t = rho - e.x0 * std::cos(theta) - e.y0 * std::sin(theta);
        const double c = std::cos(theta - e.phi), s = std::sin(theta - e.phi);
        const double s2 = e.a * e.a * c * c + e.b * e.b * s * s;
        if (t * t < s2) p += 2.0 * e.mu * e.a * e.b * std::sqrt(s2 - t * t) / s2;
    }
    return p;
}

// A tube holding a rock-like matrix with grains and pores, the whole slightly off the axis (as a
// mounted sample is). Spheres of grains cut each detector row at their own radius.
inline std::vector<Ellipse> sample_row(size_type row, std::uint64_t seed) {
    std::vector<Ellipse> e{{0.004, 232, 232, 6, -4, 0},      {-0.004, 218, 218, 6, -4, 0},
                           {0.005, 175, 140, 12, -18, 0.35}, {0.003, 60, 35, -90, 70, -0.6}};
    Random random{seed};
    for (int g = 0; g < 60; ++g) {
        const double radius = random.uniform(3, 22), angle = random.uniform(0, 2 * std::numbers::pi);
        const double distance = 150 * std::sqrt(random.uniform()), z = random.uniform(-20, 24);
        const double mu = g % 4 == 0 ? -0.004 : random.uniform(0.003, 0.012);  // every 4th a pore
        const double dz = double(row) - z, r2 = radius * radius - dz * dz;
        if (r2 > 1) e.push_back({mu, std::sqrt(r2), std::sqrt(r2), 12 + distance * std::cos(angle),
                                 -18 + 0.8 * distance * std::sin(angle), 0});
    }
    return e;
}

}  // namespace rotated_sample_detail

/// Writes the file (theta:y:x, uint16; see the header comment). Throws Hdf5Error.
inline void write_rotated_sample(const std::string& path, const RotatedSampleSpec& s) {
    using namespace rotated_sample_detail;
    const size_type T = s.angles, R = s.rows, C = s.cols;
    Random random{s.seed * 0x2545f4914f6cdd1dULL + 1};
    // Open beam per pixel: a Gaussian beam profile off the middle times fixed pixel gains.
    std::vector<double> beam(static_cast<std::size_t>(R * C)), dark(static_cast<std::size_t>(R * C));
    for (size_type r = 0; r < R; ++r)
        for (size_type x = 0; x < C; ++x) {
            const double u = (double(x) - 0.58 * double(C)) / (0.4 * double(C));
            beam[r * C + x] = s.white * (0.55 + 0.45 * std::exp(-u * u)) * (1.0 + 0.03 * random.normal());
            dark[r * C + x] = s.dark * (1.0 + 0.05 * random.normal());
        }
    std::vector<float> theta(static_cast<std::size_t>(T));
    for (size_type t = 0; t < T; ++t) theta[t] = static_cast<float>(180.0 * double(t) / double(T - 1));
    // Counts laid out (rows, theta, cols), as write_exchange_data takes them.
    std::vector<float> data(static_cast<std::size_t>(R * T * C));
    for (size_type r = 0; r < R; ++r) {
        const auto sample = sample_row(r, s.seed);
        for (size_type t = 0; t < T; ++t) {
            const double angle = double(theta[t]) * std::numbers::pi / 180.0;
            const double flux = 1.0 + 0.01 * std::sin(0.37 * double(t));  // source drift, unseen by the flats
            for (size_type x = 0; x < C; ++x) {
                const double p = project(sample, angle, double(x) + 0.5 - s.axis);
                const std::size_t i = static_cast<std::size_t>(r * C + x);
                data[(r * T + t) * C + x] = float(random.counts(dark[i]) + random.counts(flux * beam[i] * std::exp(-p)));
            }
        }
    }
    for (size_type h = 0; h < s.hot_pixels; ++h) data[random.next() % data.size()] = 65535.0f;
    ExchangeWriteOptions o;
    auto file = io::File::create(path);
    write_exchange_data(file, data, {T, R, C}, o);
    auto frames = [&](const char* name, size_type count, bool with_beam) {
        std::vector<std::uint16_t> v(static_cast<std::size_t>(count * R * C));
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::size_t pixel = i % static_cast<std::size_t>(R * C);
            v[i] = static_cast<std::uint16_t>(std::min(65535.0, random.counts(dark[pixel]) +
                                                                    (with_beam ? random.counts(beam[pixel]) : 0.0)));
        }
        file.write(name, {count, R, C}, v.data());
    };
    frames("/exchange/data_white", s.num_white, true);
    frames("/exchange/data_dark", s.num_dark, false);
    write_exchange_theta(file, theta);
    file.commit();
}

}  // namespace tessel::xct::test
