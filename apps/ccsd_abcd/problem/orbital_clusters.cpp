// k-means (Lloyd, k-means++ seeding) of orbital centres.
#include "apps/ccsd_abcd/problem/orbital_clusters.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "core/error.hpp"

namespace tessel::abcd {

namespace {
double dist2(const Point3& a, const Point3& b) {
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}
}  // namespace

std::vector<size_type> Clusters::sizes() const {
    std::vector<size_type> s;
    for (const auto& m : members) s.push_back(static_cast<size_type>(m.size()));
    return s;
}

double Clusters::gap(size_type s, size_type t) const { return gap(s, *this, t); }

double Clusters::gap(size_type s, const Clusters& other, size_type t) const {
    const double d = std::sqrt(dist2(centroids[s], other.centroids[t])) - radii[s] - other.radii[t];
    return std::max(0.0, d);
}

Clusters kmeans_clusters(const std::vector<Point3>& points, size_type k, std::uint64_t seed,
                         int iterations) {
    if (k < 1) TESSEL_INVALID_INPUT("k-means", 0, "needs at least one cluster");
    if (points.empty()) TESSEL_INVALID_INPUT("k-means", 0, "no points to cluster");
    const size_type n = static_cast<size_type>(points.size());
    k = std::min(k, n);
    std::mt19937_64 rng(seed);
    // k-means++: each next centre drawn with probability proportional to d² to the nearest.
    std::vector<Point3> centres;
    std::vector<double> d2(static_cast<std::size_t>(n), std::numeric_limits<double>::max());
    centres.push_back(points[std::uniform_int_distribution<size_type>(0, n - 1)(rng)]);
    while (static_cast<size_type>(centres.size()) < k) {
        double total = 0;
        for (size_type i = 0; i < n; ++i) {
            d2[i] = std::min(d2[i], dist2(points[i], centres.back()));
            total += d2[i];
        }
        if (total <= 0) break;  // fewer distinct points than k
        double r = std::uniform_real_distribution<double>(0, total)(rng);
        size_type pick = n - 1;
        for (size_type i = 0; i < n; ++i) {
            r -= d2[i];
            if (r < 0) { pick = i; break; }
        }
        centres.push_back(points[pick]);
    }
    std::vector<size_type> label(static_cast<std::size_t>(n), -1);
    for (int it = 0; it < iterations; ++it) {
        bool changed = false;
        for (size_type i = 0; i < n; ++i) {
            size_type best = 0;
            double bd = std::numeric_limits<double>::max();
            for (size_type c = 0; c < static_cast<size_type>(centres.size()); ++c) {
                const double d = dist2(points[i], centres[c]);
                if (d < bd) { bd = d; best = c; }
            }
            if (label[i] != best) { label[i] = best; changed = true; }
        }
        std::vector<Point3> sum(centres.size(), Point3{0, 0, 0});
        std::vector<size_type> count(centres.size(), 0);
        for (size_type i = 0; i < n; ++i) {
            for (int x = 0; x < 3; ++x) sum[label[i]][x] += points[i][x];
            ++count[label[i]];
        }
        for (std::size_t c = 0; c < centres.size(); ++c)
            if (count[c] > 0)
                for (int x = 0; x < 3; ++x) centres[c][x] = sum[c][x] / double(count[c]);
        if (!changed) break;
    }
    // Gather non-empty clusters, sorted along the chain (x of the centroid).
    std::vector<std::vector<size_type>> groups(centres.size());
    for (size_type i = 0; i < n; ++i) groups[label[i]].push_back(i);
    std::vector<std::size_t> order;
    for (std::size_t c = 0; c < centres.size(); ++c)
        if (!groups[c].empty()) order.push_back(c);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return centres[a][0] < centres[b][0] || (centres[a][0] == centres[b][0] && a < b);
    });
    Clusters out;
    for (auto c : order) {
        double r = 0;
        for (auto i : groups[c]) r = std::max(r, std::sqrt(dist2(points[i], centres[c])));
        out.members.push_back(std::move(groups[c]));
        out.centroids.push_back(centres[c]);
        out.radii.push_back(r);
    }
    return out;
}

}  // namespace tessel::abcd
