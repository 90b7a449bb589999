// Exact intersection lengths against hand computations: axis-aligned and 45° rays, rays that
// miss the image, rays through pixel corners, rays along the box edges.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/geometry/siddon.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

constexpr double pi = std::numbers::pi;

std::map<size_type, double> lengths(size_type n, double theta, double rho) {
    std::map<size_type, double> m;
    for (const auto& e : trace(n, theta, rho)) m[e.pixel] += e.length;
    return m;
}

// Chord of the line {x cosθ + y sinθ = ρ} through the box [-h, h]^2 (Liang-Barsky, independent
// of the walk).
double chord(double h, double theta, double rho) {
    const double c = std::cos(theta), s = std::sin(theta);
    const double dx = -s, dy = c, px = rho * c, py = rho * s;
    double t0 = -1e300, t1 = 1e300;
    for (auto [p, d] : {std::pair{px, dx}, std::pair{py, dy}}) {
        if (std::abs(d) < 1e-12) {
            if (p < -h || p >= h) return 0;
            continue;
        }
        const double a = (-h - p) / d, b = (h - p) / d;
        t0 = std::max(t0, std::min(a, b));
        t1 = std::min(t1, std::max(a, b));
    }
    return std::max(0.0, t1 - t0);
}

}  // namespace

TEST_CASE("channel centres and uniform angles follow FORMATS.md", "[xct][geometry]") {
    Geometry g{4, 4, uniform_angles(4)};
    CHECK(g.rho(0) == -1.5);
    CHECK(g.rho(3) == 1.5);
    CHECK(g.theta[1] == Approx(pi / 4));
    CHECK(g.num_rays() == 16);
    CHECK_NOTHROW(g.validate());
}

TEST_CASE("theta = 0: vertical rays cross one column, length 1 per pixel", "[xct][siddon]") {
    // x·1 + y·0 = ρ: the line x = ρ = -1.5 + c runs through column c of every row.
    for (size_type c = 0; c < 4; ++c) {
        const auto m = lengths(4, 0.0, -1.5 + double(c));
        REQUIRE(m.size() == 4);
        for (size_type iy = 0; iy < 4; ++iy) CHECK(m.at(iy * 4 + c) == Approx(1.0).margin(1e-12));
    }
}

TEST_CASE("theta = 90 degrees: horizontal rays cross one row", "[xct][siddon]") {
    // y = ρ: row iy = ρ + 1.5, every column.
    const auto m = lengths(4, pi / 2, 0.5);
    REQUIRE(m.size() == 4);
    for (size_type ix = 0; ix < 4; ++ix) CHECK(m.at(2 * 4 + ix) == Approx(1.0).margin(1e-12));
}

TEST_CASE("45 degrees through the centre: the anti-diagonal through pixel corners", "[xct][siddon]") {
    // x + y = 0 passes through the corners (k, -k): each pixel with ix + iy = 3 gets √2, and the
    // neighbours it only touches at corners get nothing.
    const auto m = lengths(4, pi / 4, 0.0);
    REQUIRE(m.size() == 4);
    for (size_type ix = 0; ix < 4; ++ix) CHECK(m.at((3 - ix) * 4 + ix) == Approx(std::sqrt(2.0)).margin(1e-12));
}

TEST_CASE("45 degrees off the corners: hand-computed triangle cuts", "[xct][siddon]") {
    // n = 2, θ = 45°, ρ = 0.5/√2: the line x + y = 0.5. Box [-1, 1]^2; it enters at (1, -0.5) and
    // leaves at (-0.5, 1). Pixels: (1,0) = [0,1]x[-1,0]: from (1,-0.5) to (0.5, 0): length
    // 0.5√2; (1,1) = [0,1]x[0,1]: from (0.5,0) to (0,0.5): 0.5√2; (0,1) = [-1,0]x[0,1]: from
    // (0,0.5) to (-0.5,1): 0.5√2; pixel (0,0) is missed.
    const auto m = lengths(2, pi / 4, 0.5 / std::sqrt(2.0));
    REQUIRE(m.size() == 3);
    const double l = 0.5 * std::sqrt(2.0);
    CHECK(m.at(0 * 2 + 1) == Approx(l).margin(1e-12));
    CHECK(m.at(1 * 2 + 1) == Approx(l).margin(1e-12));
    CHECK(m.at(1 * 2 + 0) == Approx(l).margin(1e-12));
}

TEST_CASE("rays that miss the image are empty", "[xct][siddon]") {
    CHECK(trace(4, 0.3, 3.0).empty());          // beyond the half-diagonal 2√2 = 2.83
    CHECK(trace(4, pi / 4, 2.0 * std::sqrt(2.0)).empty());  // touches only the corner (2, 2)
    CHECK(trace(4, 0.0, 2.0).empty());           // the right edge x = 2 is outside (half-open)
    CHECK(count_ray(4, 0.0, 2.0) == 0);
    CHECK(bound_ray(4, 0.0, 2.0) == 0);
}

TEST_CASE("a ray along a grid line belongs to the pixels right of it", "[xct][siddon]") {
    // x = -2 (the left edge): inside the half-open box, column 0.
    const auto left = lengths(4, 0.0, -2.0);
    REQUIRE(left.size() == 4);
    for (size_type iy = 0; iy < 4; ++iy) CHECK(left.at(iy * 4 + 0) == Approx(1.0));
    // x = 0 (an interior grid line): column 2.
    const auto mid = lengths(4, 0.0, 0.0);
    REQUIRE(mid.size() == 4);
    for (size_type iy = 0; iy < 4; ++iy) CHECK(mid.at(iy * 4 + 2) == Approx(1.0));
}

TEST_CASE("a ray through a single corner region: short cut of a corner pixel", "[xct][siddon]") {
    // n = 2, θ = 45°, x + y = 1.5: cuts only the corner of pixel (1,1) from (1,0.5) to (0.5,1).
    const auto m = lengths(2, pi / 4, 1.5 / std::sqrt(2.0));
    REQUIRE(m.size() == 1);
    CHECK(m.at(3) == Approx(0.5 * std::sqrt(2.0)).margin(1e-12));
}

TEST_CASE("lengths sum to the chord and counts agree for random rays", "[xct][siddon]") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> angle(0.0, 2 * pi), offset(-40.0, 40.0);
    for (int trial = 0; trial < 2000; ++trial) {
        const size_type n = 1 + trial % 53;
        const double theta = angle(rng), rho = offset(rng) * double(n) / 53.0;
        const auto entries = trace(n, theta, rho);
        double sum = 0;
        for (const auto& e : entries) {
            REQUIRE(e.pixel >= 0);
            REQUIRE(e.pixel < n * n);
            REQUIRE(e.length > 0);
            REQUIRE(e.length <= std::sqrt(2.0) + 1e-12);
            sum += e.length;
        }
        REQUIRE(sum == Approx(chord(0.5 * double(n), theta, rho)).margin(1e-9));
        REQUIRE(count_ray(n, theta, rho) == static_cast<size_type>(entries.size()));
        REQUIRE(bound_ray(n, theta, rho) >= count_ray(n, theta, rho));
    }
}

TEST_CASE("every pixel on a general line is visited once, in order along it", "[xct][siddon]") {
    const auto entries = trace(64, 0.4, 3.7);
    std::map<size_type, int> seen;
    for (const auto& e : entries) ++seen[e.pixel];
    for (const auto& [pixel, times] : seen) CHECK(times == 1);
    // Consecutive pixels are grid neighbours (share an edge or, at a corner, a vertex).
    for (std::size_t i = 1; i < entries.size(); ++i) {
        const long long a = entries[i - 1].pixel, b = entries[i].pixel;
        CHECK(std::abs(a % 64 - b % 64) <= 1);
        CHECK(std::abs(a / 64 - b / 64) <= 1);
    }
}

namespace {

// Siddon's original form, independent of the walk: every grid crossing's parameter, sorted,
// and for each gap longer than min_segment the pixel holding its midpoint (clamped to the box).
std::vector<RayEntry> sorted_crossings_trace(size_type n, double theta, double rho) {
    const double c = std::cos(theta), s = std::sin(theta), dx = -s, dy = c, px = rho * c, py = rho * s;
    const double h = 0.5 * double(n), len = chord(h, theta, rho);
    if (!(len > min_segment)) return {};
    double t_in = -1e300;
    for (auto [p, d] : {std::pair{px, dx}, std::pair{py, dy}})
        if (std::abs(d) > 1e-12) t_in = std::max(t_in, std::min((-h - p) / d, (h - p) / d));
    const double t_out = t_in + len;
    std::vector<double> ts{t_in, t_out};
    for (auto [p, d] : {std::pair{px, dx}, std::pair{py, dy}})
        if (std::abs(d) > 1e-12)
            for (size_type k = 1; k < n; ++k) {
                const double t = (double(k) - h - p) / d;
                if (t > t_in && t < t_out) ts.push_back(t);
            }
    std::sort(ts.begin(), ts.end());
    std::vector<RayEntry> out;
    for (std::size_t i = 1; i < ts.size(); ++i) {
        if (!(ts[i] - ts[i - 1] > min_segment)) continue;
        const double tm = 0.5 * (ts[i] + ts[i - 1]);
        const auto cell = [&](double v) {
            return std::clamp<long long>(static_cast<long long>(std::floor(v + h)), 0, static_cast<long long>(n) - 1);
        };
        // A line within 1e-12 of parallel to an axis keeps its coordinate on that axis.
        const double x = std::abs(dx) > 1e-12 ? px + tm * dx : px, y = std::abs(dy) > 1e-12 ? py + tm * dy : py;
        out.push_back({cell(y) * n + cell(x), ts[i] - ts[i - 1]});
    }
    return out;
}

}  // namespace

TEST_CASE("the walk visits the pixels of Siddon's sorted crossings, in the same order", "[xct][siddon]") {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> angle(0.0, 2 * pi), offset(-1.0, 1.0);
    for (const size_type n : {1, 2, 7, 64, 255}) {
        const double h = 0.5 * double(n);
        std::vector<std::pair<double, double>> rays;  // (theta, rho)
        for (int i = 0; i < 3000; ++i) rays.emplace_back(angle(rng), offset(rng) * h);
        for (int a = 0; a < 16; ++a)  // multiples of 22.5 degrees on pixel edges, corners and centres
            for (int k = -4 * int(n); k <= 4 * int(n); k += std::max(1, int(n) / 8)) rays.emplace_back(a * pi / 8, k / 4.0);
        for (const double tiny : {1e-11, 1e-9, 1e-6}) rays.emplace_back(tiny, 0.37 * h);  // nearly vertical
        for (const auto& [theta, rho] : rays) {
            const auto walk = trace(n, theta, rho);
            const auto reference = sorted_crossings_trace(n, theta, rho);
            INFO("n " << n << " theta " << theta << " rho " << rho);
            REQUIRE(walk.size() == reference.size());
            for (std::size_t i = 0; i < walk.size(); ++i) {
                REQUIRE(walk[i].pixel == reference[i].pixel);
                REQUIRE(walk[i].length == Approx(reference[i].length).margin(1e-12));
            }
        }
    }
}
