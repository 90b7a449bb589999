// Parallel-beam rays through a pixel grid by marching, and Hilbert orders of both domains.
#include "partition/tomography.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "partition/hilbert.hpp"

namespace tessel::partition {

template <typename V, typename I>
Csr<V, I> parallel_beam_matrix(const TomographyGeometry& g) {
    if (g.pixels < 1 || g.angles < 1 || g.channels < 1)
        TESSEL_INVALID_INPUT("tomography", 0, "pixels, angles and channels must be at least 1");
    const size_type n = g.pixels;
    const double half = 0.5 * double(n), radius = half * std::numbers::sqrt2;
    const double spacing = 2.0 * radius / double(g.channels), step = 0.25;
    const size_type samples = static_cast<size_type>(std::ceil(2.0 * radius / step));
    std::vector<size_type> ptr{0};
    std::vector<I> col;
    std::vector<V> val;
    std::vector<std::pair<size_type, double>> lengths;
    for (size_type a = 0; a < g.angles; ++a) {
        const double theta = std::numbers::pi * double(a) / double(g.angles);
        const double dx = std::cos(theta), dy = std::sin(theta);  // along the ray
        for (size_type c = 0; c < g.channels; ++c) {
            const double t = -radius + (double(c) + 0.5) * spacing;  // signed distance from centre
            lengths.clear();
            // A straight ray never re-enters a (convex) pixel: runs of samples are the pixels.
            for (size_type s = 0; s < samples; ++s) {
                const double u = -radius + (double(s) + 0.5) * step;
                const double x = t * -dy + u * dx + half, y = t * dx + u * dy + half;
                if (x < 0 || y < 0 || x >= double(n) || y >= double(n)) continue;
                const size_type pixel = size_type(y) * n + size_type(x);
                if (lengths.empty() || lengths.back().first != pixel)
                    lengths.emplace_back(pixel, 0.0);
                lengths.back().second += step;
            }
            std::sort(lengths.begin(), lengths.end());
            for (std::size_t e = 0; e < lengths.size(); ++e) {
                if (e > 0 && lengths[e].first == lengths[e - 1].first) {  // rounding at a corner
                    val.back() += static_cast<V>(lengths[e].second);
                    continue;
                }
                col.push_back(static_cast<I>(lengths[e].first));
                val.push_back(static_cast<V>(lengths[e].second));
            }
            ptr.push_back(static_cast<size_type>(col.size()));
        }
    }
    return Csr<V, I>(g.angles * g.channels, n * n, std::move(ptr), std::move(col), std::move(val),
                     "tomography");
}

TomographyOrder tomography_hilbert_order(const TomographyGeometry& g, size_type tile) {
    return {hilbert_order_2d(g.channels, g.angles, tile), hilbert_order_2d(g.pixels, g.pixels, tile)};
}

#define TESSEL_INSTANTIATE(V, I) \
    template Csr<V, I> parallel_beam_matrix(const TomographyGeometry&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::partition
