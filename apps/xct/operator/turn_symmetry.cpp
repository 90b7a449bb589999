#include "apps/xct/operator/turn_symmetry.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <string>

#include "core/error.hpp"

namespace tessel::xct {

TurnSymmetry parse_turn_symmetry(std::string_view name) {
    if (name == "auto") return TurnSymmetry::automatic;
    if (name == "on") return TurnSymmetry::on;
    if (name == "off") return TurnSymmetry::off;
    TESSEL_INVALID_INPUT("turn_symmetry", 0, "'" + std::string(name) + "' is not 'auto', 'on' or 'off'");
}

std::string_view to_string(TurnSymmetry mode) {
    switch (mode) {
    case TurnSymmetry::on: return "on";
    case TurnSymmetry::off: return "off";
    default: return "auto";
    }
}

namespace {

std::string decimals(double value, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

std::string significant(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2g", value);
    return text;
}

double degrees(double radians) { return radians * 180.0 / std::numbers::pi; }

// Distance from the axis to the image's corners: where a turned ray strays furthest.
double corner_radius(const Geometry& g) { return double(g.n) / std::numbers::sqrt2; }

}  // namespace

TurnedPairing turned_pairing(const Geometry& g) {
    TurnedPairing p;
    const size_type m = g.num_theta(), half = m / 2;
    if (m == 0 || m % 2 != 0) {
        p.problem = "needs an even number of angles, not " + std::to_string(m);
        return p;
    }
    double worst = -1;
    for (size_type a = 0; a < half; ++a) {
        const double gap = g.theta[a + half] - g.theta[a], off = std::abs(gap - 0.5 * std::numbers::pi);
        if (!(off <= worst)) {  // NaN angles count as the worst
            worst = std::isnan(off) ? std::numeric_limits<double>::infinity() : off;
            p.worst = a;
            p.partner = a + half;
            p.worst_gap = gap;
        }
    }
    p.shift_pixels = corner_radius(g) * worst / 2;
    if (!(p.shift_pixels <= turn_pair_tolerance_pixels))
        p.problem = "angles " + std::to_string(p.worst) + " and " + std::to_string(p.partner) + " are " +
                    decimals(degrees(p.worst_gap), 6) + " degrees apart, not 90: its rays, traced at the pair's "
                    "mean angle, would move " + significant(p.shift_pixels) + " pixel at the image's corners, more than " +
                    significant(turn_pair_tolerance_pixels);
    return p;
}

std::string turned_pairs_problem(const Geometry& g) { return turned_pairing(g).problem; }

std::string turned_pairing_note(const TurnedPairing& p) {
    if (!p.problem.empty() || std::abs(p.worst_gap - 0.5 * std::numbers::pi) <= turn_pair_exact) return "";
    return "within " + significant(std::abs(degrees(p.worst_gap) - 90)) + " degrees (the worst pair, angles " +
           std::to_string(p.worst) + " and " + std::to_string(p.partner) + ", " +
           decimals(degrees(p.worst_gap), 6) + " apart; each pair traced at its mean angle, so a ray moves at most " +
           significant(p.shift_pixels) + " pixel at the image's corners, bound " +
           significant(turn_pair_tolerance_pixels) + ")";
}

void check_turned_pairs(const Geometry& g, const char* option) {
    if (const std::string problem = turned_pairs_problem(g); !problem.empty()) TESSEL_INVALID_INPUT(option, 0, problem);
}

bool turn_chosen(TurnSymmetry mode, const Geometry& g, const char* option, std::string& why) {
    if (mode == TurnSymmetry::off) return false;
    if (mode == TurnSymmetry::on) {
        check_turned_pairs(g, option);
        return true;
    }
    const TurnedPairing pairing = turned_pairing(g);
    const std::string note = turned_pairing_note(pairing);
    why = pairing.problem.empty() ? "on: the angles pair up 90 degrees apart" + (note.empty() ? "" : " " + note) +
                                        "; A of the first half, applied to the image and its quarter turn"
                                  : "off: the angles do not pair up 90 degrees apart (" + pairing.problem + ")";
    return pairing.problem.empty();
}

Geometry first_half(const Geometry& g) {
    Geometry half = g;
    const std::size_t m = g.theta.size() / 2;
    half.theta.resize(m);
    // A pair off by δ is traced at its mean: each of its two angles is then δ/2 off, not one of them δ.
    for (std::size_t a = 0; a < m; ++a) {
        const double partner = g.theta[a + m] - 0.5 * std::numbers::pi;
        if (std::abs(partner - g.theta[a]) > turn_pair_exact) half.theta[a] = 0.5 * (g.theta[a] + partner);
    }
    return half;
}

Ordering paired_ordering(const Ordering& half, const Geometry& g) {
    const size_type half_rays = static_cast<size_type>(half.rays.size()), shift = half_rays;
    TESSEL_ENSURE_DIMS(2 * half_rays == g.num_rays(), "paired_ordering: the half has " + std::to_string(half_rays) +
                                                          " rays of " + std::to_string(g.num_rays()));
    Ordering o = half;
    o.rays.resize(static_cast<std::size_t>(2 * half_rays));
    o.ray_position.resize(o.rays.size());
    // Ray a·num_rho + c of the second half is (a + M/2)·num_rho + c: the first half's index + shift.
    for (size_type i = 0; i < half_rays; ++i) {
        o.rays[half_rays + i] = half.rays[i] + shift;
        o.ray_position[half.rays[i] + shift] = half_rays + i;
    }
    return o;
}

std::vector<size_type> turned_positions(const Ordering& o, size_type n) {
    std::vector<size_type> turn(o.pixels.size());
    for (std::size_t q = 0; q < turn.size(); ++q) {
        const size_type u = o.pixels[q], ix = u % n, iy = u / n;
        turn[q] = o.pixel_position[ix * n + (n - 1 - iy)];
    }
    return turn;
}

}  // namespace tessel::xct
