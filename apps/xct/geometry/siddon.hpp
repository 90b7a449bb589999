// Exact ray-pixel intersection lengths (a Siddon-type walk) for the parallel-beam geometry.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "apps/xct/geometry/geometry.hpp"
#include "core/types.hpp"

namespace tessel::xct {

/// Segments shorter than this (in pixels) are dropped: they come from a line that only
/// touches a pixel corner, where two grid crossings coincide.
inline constexpr double min_segment = 1e-9;

/// Walks the line {x·cosθ + y·sinθ = ρ} through the n x n image of geometry.hpp and calls
/// visit(pixel, length) for every pixel it crosses, in order along the line, where pixel =
/// iy·n + ix and length > min_segment is the exact length of the line inside the pixel (up to
/// rounding). The line is clipped to the image box. Pixels are half-open: a line running
/// along the grid line x = -n/2 + k belongs to the pixels right of it (column k), and one
/// along the right or top edge of the box misses the image. The crossings with the x and y
/// grid lines are computed directly (not accumulated), so the lengths sum to the chord.
template <typename Visit>
void trace_ray(size_type n, double theta, double rho, Visit&& visit) {
    constexpr double parallel = 1e-12;
    const double c = std::cos(theta), s = std::sin(theta);
    const double dx = -s, dy = c;          // unit direction along the line
    const double px = rho * c, py = rho * s;  // foot of the perpendicular from the origin
    const double half = 0.5 * double(n);
    double t_in = -std::numeric_limits<double>::infinity();
    double t_out = std::numeric_limits<double>::infinity();
    const bool moves_x = std::abs(dx) > parallel, moves_y = std::abs(dy) > parallel;
    if (moves_x) {
        const double t1 = (-half - px) / dx, t2 = (half - px) / dx;
        t_in = std::max(t_in, std::min(t1, t2));
        t_out = std::min(t_out, std::max(t1, t2));
    } else if (px < -half || px >= half) {
        return;
    }
    if (moves_y) {
        const double t1 = (-half - py) / dy, t2 = (half - py) / dy;
        t_in = std::max(t_in, std::min(t1, t2));
        t_out = std::min(t_out, std::max(t1, t2));
    } else if (py < -half || py >= half) {
        return;
    }
    if (!(t_out - t_in > min_segment)) return;

    // Grid lines strictly inside the chord: x = -half + k for k in [kx, kx_end), stepping
    // in the direction of travel; the same for y.
    const double inf = std::numeric_limits<double>::infinity();
    long long kx = 0, kx_last = -1, kx_step = 1, ky = 0, ky_last = -1, ky_step = 1;
    if (moves_x) {
        const double x0 = px + t_in * dx + half, x1 = px + t_out * dx + half;
        if (dx > 0) {
            kx = static_cast<long long>(std::floor(x0)) + 1;
            kx_last = static_cast<long long>(std::ceil(x1)) - 1;
        } else {
            kx = static_cast<long long>(std::ceil(x0)) - 1;
            kx_last = static_cast<long long>(std::floor(x1)) + 1;
            kx_step = -1;
        }
    }
    if (moves_y) {
        const double y0 = py + t_in * dy + half, y1 = py + t_out * dy + half;
        if (dy > 0) {
            ky = static_cast<long long>(std::floor(y0)) + 1;
            ky_last = static_cast<long long>(std::ceil(y1)) - 1;
        } else {
            ky = static_cast<long long>(std::ceil(y0)) - 1;
            ky_last = static_cast<long long>(std::floor(y1)) + 1;
            ky_step = -1;
        }
    }
    auto next_x = [&]() {
        if (!moves_x || (kx_step > 0 ? kx > kx_last : kx < kx_last)) return inf;
        return (double(kx) - half - px) / dx;
    };
    auto next_y = [&]() {
        if (!moves_y || (ky_step > 0 ? ky > ky_last : ky < ky_last)) return inf;
        return (double(ky) - half - py) / dy;
    };
    double tx = next_x(), ty = next_y();
    double t = t_in;
    const long long last = static_cast<long long>(n) - 1;
    // The pixel (ix, iy) is found from the midpoint of the first kept segment, then stepped at
    // each grid line crossed: the floors of a midpoint per segment were most of the walk's work.
    // It is clamped only where rounding puts it a pixel outside the box at an edge.
    long long ix = 0, iy = 0;
    bool placed = false;
    while (true) {
        const double t_next = std::min({tx, ty, t_out});
        const double length = t_next - t;
        if (length > min_segment) {
            if (!placed) {  // a line taken as parallel to an axis keeps its coordinate on it
                const double tm = 0.5 * (t + t_next);
                ix = static_cast<long long>(std::floor((moves_x ? px + tm * dx : px) + half));
                iy = static_cast<long long>(std::floor((moves_y ? py + tm * dy : py) + half));
                placed = true;
            }
            const long long cx = std::clamp(ix, 0LL, last), cy = std::clamp(iy, 0LL, last);
            visit(static_cast<size_type>(cy * static_cast<long long>(n) + cx), length);
        }
        if (t_next >= t_out) break;
        if (tx <= t_next) {
            kx += kx_step;
            ix += kx_step;
            tx = next_x();
        }
        if (ty <= t_next) {
            ky += ky_step;
            iy += ky_step;
            ty = next_y();
        }
        t = t_next;
    }
}

/// One entry of a traced ray.
struct RayEntry {
    size_type pixel;
    double length;
};

/// The entries of one ray, in order along it (for tests and small tools).
std::vector<RayEntry> trace(size_type n, double theta, double rho);

/// Number of pixels the ray crosses (exact: the same walk as trace_ray, without storing).
size_type count_ray(size_type n, double theta, double rho);

/// An upper bound of count_ray in O(1): grid lines crossed + 1 (exact unless the line passes
/// through pixel corners). Used by the memory estimate before anything is built.
size_type bound_ray(size_type n, double theta, double rho);

}  // namespace tessel::xct
