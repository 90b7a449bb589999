// Exact ray tracing: stored and counted forms of trace_ray, and the O(1) count bound.
#include "apps/xct/geometry/siddon.hpp"

namespace tessel::xct {

std::vector<RayEntry> trace(size_type n, double theta, double rho) {
    std::vector<RayEntry> entries;
    trace_ray(n, theta, rho, [&](size_type pixel, double length) { entries.push_back({pixel, length}); });
    return entries;
}

size_type count_ray(size_type n, double theta, double rho) {
    size_type count = 0;
    trace_ray(n, theta, rho, [&](size_type, double) { ++count; });
    return count;
}

size_type bound_ray(size_type n, double theta, double rho) {
    constexpr double parallel = 1e-12;
    const double c = std::cos(theta), s = std::sin(theta);
    const double dx = -s, dy = c, px = rho * c, py = rho * s, half = 0.5 * double(n);
    double t_in = -std::numeric_limits<double>::infinity(), t_out = std::numeric_limits<double>::infinity();
    const bool moves_x = std::abs(dx) > parallel, moves_y = std::abs(dy) > parallel;
    if (moves_x) {
        const double t1 = (-half - px) / dx, t2 = (half - px) / dx;
        t_in = std::max(t_in, std::min(t1, t2));
        t_out = std::min(t_out, std::max(t1, t2));
    } else if (px < -half || px >= half) {
        return 0;
    }
    if (moves_y) {
        const double t1 = (-half - py) / dy, t2 = (half - py) / dy;
        t_in = std::max(t_in, std::min(t1, t2));
        t_out = std::min(t_out, std::max(t1, t2));
    } else if (py < -half || py >= half) {
        return 0;
    }
    if (!(t_out - t_in > min_segment)) return 0;
    auto lines = [&](double a, double b) {  // grid lines strictly between a and b (offsets from -half)
        const double lo = std::min(a, b) + half, hi = std::max(a, b) + half;
        return std::max<long long>(0, static_cast<long long>(std::ceil(hi)) - 1 -
                                          static_cast<long long>(std::floor(lo)));
    };
    size_type count = 1;
    if (moves_x) count += lines(px + t_in * dx, px + t_out * dx);
    if (moves_y) count += lines(py + t_in * dy, py + t_out * dy);
    return count;
}

}  // namespace tessel::xct
