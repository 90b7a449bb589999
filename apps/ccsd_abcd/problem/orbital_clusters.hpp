// k-means clustering of orbital centres into tiles (as MPQC tiles its index ranges), ordered
// along the chain so that neighbouring tiles are neighbours in space.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

using Point3 = std::array<double, 3>;

/// Clusters of points: cluster t holds `members[t]` (indices of the input points), has
/// centroid `centroids[t]` and radius `radii[t]` (largest member distance to the centroid).
/// Clusters are sorted by the x coordinate of their centroids.
struct Clusters {
    std::vector<std::vector<size_type>> members;
    std::vector<Point3> centroids;
    std::vector<double> radii;

    size_type count() const { return static_cast<size_type>(members.size()); }
    std::vector<size_type> sizes() const;
    /// Distance between the extents of clusters s and t: max(0, |c_s - c_t| - r_s - r_t).
    double gap(size_type s, size_type t) const;
    /// gap() between cluster s of this and cluster t of `other`.
    double gap(size_type s, const Clusters& other, size_type t) const;
};

/// Lloyd's k-means on `points` into at most k clusters (k-means++ seeding from `seed`, at most
/// `iterations` rounds); clusters that end empty are dropped. Deterministic for a seed.
/// Throws InvalidInput when k < 1 or there are no points.
Clusters kmeans_clusters(const std::vector<Point3>& points, size_type k, std::uint64_t seed,
                         int iterations = 100);

}  // namespace tessel::abcd
