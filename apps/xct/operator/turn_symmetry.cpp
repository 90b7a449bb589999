#include "apps/xct/operator/turn_symmetry.hpp"

#include <cmath>
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

std::string turned_pairs_problem(const Geometry& g) {
    const size_type m = g.num_theta(), half = m / 2;
    if (m == 0 || m % 2 != 0) return "needs an even number of angles, not " + std::to_string(m);
    for (size_type a = 0; a < half; ++a) {
        const double gap = g.theta[a + half] - g.theta[a];
        if (!(std::abs(gap - 0.5 * std::numbers::pi) <= turn_pair_tolerance))
            return "angles " + std::to_string(a) + " and " + std::to_string(a + half) + " are " +
                   std::to_string(gap * 180.0 / std::numbers::pi) + " degrees apart, not 90";
    }
    return "";
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
    const std::string problem = turned_pairs_problem(g);
    why = problem.empty() ? "on: the angles pair up 90 degrees apart; A of the first half, applied to the image and "
                            "its quarter turn"
                          : "off: the angles do not pair up 90 degrees apart (" + problem + ")";
    return problem.empty();
}

Geometry first_half(const Geometry& g) {
    Geometry half = g;
    half.theta.resize(static_cast<std::size_t>(g.num_theta() / 2));
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
