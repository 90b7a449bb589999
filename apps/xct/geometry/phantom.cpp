// Shepp-Logan phantoms and Poisson noise.
#include "apps/xct/geometry/phantom.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "core/error.hpp"

namespace tessel::xct {

namespace {

struct Ellipse {
    double value, a, b, x0, y0, phi_deg;
};

// Modified Shepp-Logan (Toft 1996): value, semi-axes, centre, rotation in degrees.
constexpr Ellipse ellipses_2d[] = {
    {1.0, 0.69, 0.92, 0.0, 0.0, 0.0},       {-0.8, 0.6624, 0.8740, 0.0, -0.0184, 0.0},
    {-0.2, 0.1100, 0.3100, 0.22, 0.0, -18.0}, {-0.2, 0.1600, 0.4100, -0.22, 0.0, 18.0},
    {0.1, 0.2100, 0.2500, 0.0, 0.35, 0.0},    {0.1, 0.0460, 0.0460, 0.0, 0.1, 0.0},
    {0.1, 0.0460, 0.0460, 0.0, -0.1, 0.0},    {0.1, 0.0460, 0.0230, -0.08, -0.605, 0.0},
    {0.1, 0.0230, 0.0230, 0.0, -0.606, 0.0},  {0.1, 0.0230, 0.0460, 0.06, -0.605, 0.0},
};

struct Ellipsoid {
    double value, a, b, c, x0, y0, z0, phi, theta, psi;  // angles in degrees
};

// Modified 3-D Shepp-Logan (Kak & Slaney's ellipsoids, Toft's contrast).
constexpr Ellipsoid ellipsoids_3d[] = {
    {1.0, 0.6900, 0.920, 0.810, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {-0.8, 0.6624, 0.874, 0.780, 0.0, -0.0184, 0.0, 0.0, 0.0, 0.0},
    {-0.2, 0.1100, 0.310, 0.220, 0.22, 0.0, 0.0, -18.0, 0.0, 10.0},
    {-0.2, 0.1600, 0.410, 0.280, -0.22, 0.0, 0.0, 18.0, 0.0, 10.0},
    {0.1, 0.2100, 0.250, 0.410, 0.0, 0.35, -0.15, 0.0, 0.0, 0.0},
    {0.1, 0.0460, 0.046, 0.050, 0.0, 0.1, 0.25, 0.0, 0.0, 0.0},
    {0.1, 0.0460, 0.046, 0.050, 0.0, -0.1, 0.25, 0.0, 0.0, 0.0},
    {0.1, 0.0460, 0.023, 0.050, -0.08, -0.605, 0.0, 0.0, 0.0, 0.0},
    {0.1, 0.0230, 0.023, 0.020, 0.0, -0.606, 0.0, 0.0, 0.0, 0.0},
    {0.1, 0.0230, 0.046, 0.020, 0.06, -0.605, 0.0, 0.0, 0.0, 0.0},
};

constexpr double degrees = std::numbers::pi / 180.0;

// An ellipsoid's rotation by its Euler angles (phi, theta, psi), row by row (as phantom3d).
using Rotation = std::array<double, 9>;
Rotation rotation_of(const Ellipsoid& e) {
    const double cphi = std::cos(e.phi * degrees), sphi = std::sin(e.phi * degrees);
    const double cth = std::cos(e.theta * degrees), sth = std::sin(e.theta * degrees);
    const double cpsi = std::cos(e.psi * degrees), spsi = std::sin(e.psi * degrees);
    return {cpsi * cphi - cth * sphi * spsi,  cpsi * sphi + cth * cphi * spsi,  spsi * sth,
            -spsi * cphi - cth * sphi * cpsi, -spsi * sphi + cth * cphi * cpsi, cpsi * sth,
            sth * sphi,                       -sth * cphi,                      cth};
}

// Normalised coordinate of pixel centre i on an n grid: (-n/2 + i + 0.5)/(n/2).
double unit(size_type i, size_type n) { return (double(i) + 0.5 - 0.5 * double(n)) / (0.5 * double(n)); }

// splitmix64: a counter-based generator, so noise depends only on (seed, index).
struct SplitMix {
    using result_type = std::uint64_t;
    std::uint64_t state;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
    result_type operator()() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
};

double noisy(double p, double photons, double max_p, std::uint64_t seed, std::uint64_t index) {
    const double scale = 2.0 / max_p;
    SplitMix rng{seed * 0x9e3779b97f4a7c15ULL + index * 0xd1b54a32d192ed03ULL};
    rng();
    const double mean = photons * std::exp(-p * scale);
    std::poisson_distribution<long long> poisson(std::max(mean, 1e-300));
    const double counts = std::max<double>(1.0, double(poisson(rng)));
    return -std::log(counts / photons) / scale;
}

template <typename T>
void noise(std::span<T> sinogram, double photons, std::uint64_t seed, std::int64_t index0,
           double max_p) {
    if (!(photons > 0)) TESSEL_INVALID_INPUT("noise", 0, "photon count must be positive");
    if (max_p <= 0) {
        max_p = 0;
        for (T v : sinogram) max_p = std::max(max_p, double(v));
    }
    if (max_p <= 0) return;  // nothing attenuates: noise-free zero sinogram
    const std::int64_t count = static_cast<std::int64_t>(sinogram.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i)
        sinogram[i] = static_cast<T>(noisy(double(sinogram[i]), photons, max_p, seed, std::uint64_t(index0 + i)));
}

}  // namespace

std::vector<float> shepp_logan_2d(size_type n) {
    if (n < 1) TESSEL_INVALID_INPUT("phantom", 0, "size " + std::to_string(n) + " is below 1");
    std::vector<float> image(static_cast<std::size_t>(n * n), 0.0f);
    // Each ellipse's rotation once, not per pixel (the same doubles: the image is unchanged).
    constexpr std::size_t count = std::size(ellipses_2d);
    std::array<double, count> cosine{}, sine{};
    for (std::size_t i = 0; i < count; ++i) {
        cosine[i] = std::cos(ellipses_2d[i].phi_deg * degrees);
        sine[i] = std::sin(ellipses_2d[i].phi_deg * degrees);
    }
#pragma omp parallel for schedule(static)
    for (size_type iy = 0; iy < n; ++iy) {
        const double y = -unit(iy, n);  // row 0 is the top of the head
        for (size_type ix = 0; ix < n; ++ix) {
            const double x = unit(ix, n);
            double v = 0;
            for (std::size_t i = 0; i < count; ++i) {
                const Ellipse& e = ellipses_2d[i];
                const double c = cosine[i], s = sine[i];
                const double u = (x - e.x0) * c + (y - e.y0) * s, w = -(x - e.x0) * s + (y - e.y0) * c;
                if (u * u / (e.a * e.a) + w * w / (e.b * e.b) <= 1.0) v += e.value;
            }
            image[iy * n + ix] = static_cast<float>(v);
        }
    }
    return image;
}

namespace {

// Whether (x, y, z) lies in ellipsoid e (rotation r): the one test every pixel's value uses.
bool inside(const Ellipsoid& e, const Rotation& r, double x, double y, double z) {
    const double u = r[0] * x + r[1] * y + r[2] * z - e.x0;
    const double w = r[3] * x + r[4] * y + r[5] * z - e.y0;
    const double q = r[6] * x + r[7] * y + r[8] * z - e.z0;
    return u * u / (e.a * e.a) + w * w / (e.b * e.b) + q * q / (e.c * e.c) <= 1.0;
}

// The pixels [first, last) of a row (y, z) that may lie in e: along the row the test is a
// convex quadratic in x, so inside is an interval; its roots widened by two pixels, beyond
// which the quadratic exceeds 1 by far more than rounding, so the exact test decides the rest.
std::pair<size_type, size_type> row_span(const Ellipsoid& e, const Rotation& r, double y, double z, size_type n) {
    const double ia = 1.0 / (e.a * e.a), ib = 1.0 / (e.b * e.b), ic = 1.0 / (e.c * e.c);
    const double cu = r[1] * y + r[2] * z - e.x0, cw = r[4] * y + r[5] * z - e.y0, cq = r[7] * y + r[8] * z - e.z0;
    const double qa = r[0] * r[0] * ia + r[3] * r[3] * ib + r[6] * r[6] * ic;
    const double qb = 2.0 * (r[0] * cu * ia + r[3] * cw * ib + r[6] * cq * ic);
    const double qc = cu * cu * ia + cw * cw * ib + cq * cq * ic;
    const double disc = qb * qb - 4.0 * qa * (qc - 1.0);
    const double half = 0.5 * double(n), margin = 2.0 / half;
    const double centre = -qb / (2.0 * qa), reach = std::sqrt(std::max(disc, 0.0)) / (2.0 * qa) + margin;
    if (disc < 0 && qc - qb * qb / (4.0 * qa) > 1.0 + qa * margin * margin) return {0, 0};
    // Pixel ix sits at x = (ix + 0.5 - n/2) / (n/2).
    const double lo = std::floor((centre - reach) * half + half - 0.5), hi = std::ceil((centre + reach) * half + half - 0.5);
    const size_type first = lo < 0 ? 0 : lo > double(n) ? n : static_cast<size_type>(lo);
    const size_type last = hi < 0 ? 0 : hi + 1 > double(n) ? n : static_cast<size_type>(hi) + 1;
    return {first, std::max(first, last)};
}

}  // namespace

double shepp_logan_3d_value(double x, double y, double z) {
    double v = 0;
    for (const Ellipsoid& e : ellipsoids_3d)
        if (inside(e, rotation_of(e), x, y, z)) v += e.value;
    return v;
}

std::vector<float> shepp_logan_3d_slice(size_type n, double z) {
    if (n < 1) TESSEL_INVALID_INPUT("phantom", 0, "size " + std::to_string(n) + " is below 1");
    std::vector<float> image(static_cast<std::size_t>(n * n), 0.0f);
    // Each ellipsoid's rotation once, not per pixel (the same doubles: the image is unchanged),
    // and each row tests only the pixels near each ellipsoid's chord (a tenth of the work);
    // a pixel's sum still adds the ellipsoids in order, so every value equals
    // shepp_logan_3d_value at the pixel's centre.
    constexpr std::size_t count = std::size(ellipsoids_3d);
    std::array<Rotation, count> rotations;
    for (std::size_t i = 0; i < count; ++i) rotations[i] = rotation_of(ellipsoids_3d[i]);
#pragma omp parallel
    {
        std::vector<double> row(static_cast<std::size_t>(n));
#pragma omp for schedule(static)
        for (size_type iy = 0; iy < n; ++iy) {
            const double y = -unit(iy, n);
            std::fill(row.begin(), row.end(), 0.0);
            for (std::size_t i = 0; i < count; ++i) {
                const Ellipsoid& e = ellipsoids_3d[i];
                const auto [first, last] = row_span(e, rotations[i], y, z, n);
                for (size_type ix = first; ix < last; ++ix)
                    if (inside(e, rotations[i], unit(ix, n), y, z)) row[ix] += e.value;
            }
            for (size_type ix = 0; ix < n; ++ix) image[iy * n + ix] = static_cast<float>(row[ix]);
        }
    }
    return image;
}

std::vector<float> shepp_logan_volume(size_type n, size_type slices) {
    if (slices < 1) TESSEL_INVALID_INPUT("phantom", 0, "slice count " + std::to_string(slices) + " is below 1");
    if (slices == 1) return shepp_logan_2d(n);
    std::vector<float> volume;
    volume.reserve(static_cast<std::size_t>(n * n * slices));
    for (size_type s = 0; s < slices; ++s) {
        const auto image = shepp_logan_3d_slice(n, (2.0 * double(s) + 1.0) / double(slices) - 1.0);
        volume.insert(volume.end(), image.begin(), image.end());
    }
    return volume;
}

void add_poisson_noise(std::span<float> sinogram, double photons, std::uint64_t seed, std::int64_t index0,
                       double max_line_integral) {
    noise(sinogram, photons, seed, index0, max_line_integral);
}

void add_poisson_noise(std::span<double> sinogram, double photons, std::uint64_t seed, std::int64_t index0,
                       double max_line_integral) {
    noise(sinogram, photons, seed, index0, max_line_integral);
}

double noisy_line_integral(double p, double photons, double max_line_integral, std::uint64_t seed,
                           std::uint64_t index) {
    if (!(photons > 0)) TESSEL_INVALID_INPUT("noise", 0, "photon count must be positive");
    if (!(max_line_integral > 0)) return p;
    return noisy(p, photons, max_line_integral, seed, index);
}

double psnr(std::span<const float> image, std::span<const float> truth) {
    TESSEL_ENSURE_DIMS(image.size() == truth.size() && !truth.empty(), "psnr: sizes differ");
    double lo = truth[0], hi = truth[0], sum = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        lo = std::min(lo, double(truth[i]));
        hi = std::max(hi, double(truth[i]));
        const double d = double(image[i]) - double(truth[i]);
        sum += d * d;
    }
    const double mse = sum / double(truth.size());
    if (mse == 0) return std::numeric_limits<double>::infinity();
    const double range = hi > lo ? hi - lo : 1.0;
    return 10.0 * std::log10(range * range / mse);
}

}  // namespace tessel::xct
