// Synthetic problems: random irregular tilings and random shapes at a target density.
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "apps/ccsd_abcd/problem/generator_size.hpp"
#include "core/error.hpp"

namespace tessel::abcd {

Tiling random_tiling(size_type extent, size_type lo, size_type hi, std::mt19937_64& rng) {
    if (extent <= 0) TESSEL_INVALID_INPUT("tiling", 0, "the extent must be positive, not " + std::to_string(extent));
    if (lo <= 0) TESSEL_INVALID_INPUT("--tile-min", 0, "tile sizes must be positive, not " + std::to_string(lo));
    if (lo > hi)
        TESSEL_INVALID_INPUT("--tile-max", 0, std::to_string(hi) + " is below --tile-min " + std::to_string(lo));
    std::vector<size_type> sizes;
    size_type left = extent;
    while (left > hi) {
        // Keep the rest at least lo so that the last tile stays in range when it can.
        size_type top = std::min(hi, left - lo);
        size_type bottom = lo;
        if (top < bottom) top = bottom = std::max<size_type>(1, left / 2);
        std::uniform_int_distribution<size_type> pick(bottom, top);
        const size_type s = pick(rng);
        sizes.push_back(s);
        left -= s;
    }
    sizes.push_back(left);
    return Tiling::from_sizes(std::move(sizes), "tiling");
}

TileShape random_shape(const Tiling& rows, const Tiling& cols, double density, std::mt19937_64& rng,
                       const std::string& what) {
    if (!(density > 0.0 && density <= 1.0)) {
        std::ostringstream s;
        s << density << " is outside (0, 1]";
        TESSEL_INVALID_INPUT(what, 0, s.str());
    }
    const size_type nr = rows.count(), nc = cols.count();
    std::vector<char> alive(static_cast<std::size_t>(nr * nc), 1);
    std::vector<size_type> row_count(static_cast<std::size_t>(nr), nc), col_count(static_cast<std::size_t>(nc), nr);
    const double total = double(rows.extent()) * double(cols.extent());
    double area = total;
    const double target = density * total;
    std::vector<size_type> order(static_cast<std::size_t>(nr * nc));
    for (size_type t = 0; t < nr * nc; ++t) order[t] = t;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_type t : order) {
        const size_type i = t / nc, j = t % nc;
        const double a = double(rows.size(i)) * double(cols.size(j));
        if (area - a < target) continue;
        if (row_count[i] == 1 || col_count[j] == 1) continue;
        alive[t] = 0;
        area -= a;
        --row_count[i];
        --col_count[j];
    }
    std::vector<std::pair<size_type, size_type>> tiles;
    for (size_type t = 0; t < nr * nc; ++t)
        if (alive[t]) tiles.emplace_back(t / nc, t % nc);
    return TileShape::from_pairs(nr, nc, std::move(tiles), what);
}

Problem synthetic_problem(const SyntheticOptions& o) {
    if (o.m <= 0) TESSEL_INVALID_INPUT("--m", 0, "must be positive, not " + std::to_string(o.m));
    if (o.n <= 0) TESSEL_INVALID_INPUT("--n", 0, "must be positive, not " + std::to_string(o.n));
    std::mt19937_64 rng(o.seed);
    // Check both densities before any work so that the message names the right option.
    for (auto [d, what] : {std::pair{o.density_a, "--density-a"}, std::pair{o.density_b, "--density-b"}})
        if (!(d > 0.0 && d <= 1.0)) {
            std::ostringstream s;
            s << d << " is outside (0, 1]";
            TESSEL_INVALID_INPUT(what, 0, s.str());
        }
    check_synthetic_size(o);  // before any allocation
    Tiling mt = random_tiling(o.m, o.tile_min, o.tile_max, rng);
    Tiling kt = random_tiling(o.n, o.tile_min, o.tile_max, rng);
    Tiling nt = kt;  // B is square with the same tiling on both sides, as V(cd, ab)
    TileShape a = random_shape(mt, kt, o.density_a, rng, "--density-a");
    TileShape b = random_shape(kt, nt, o.density_b, rng, "--density-b");
    Problem p = make_problem(mt, kt, std::move(a), kt, nt, std::move(b));
    p.seed = o.seed;
    p.values = std::make_shared<GeneratedTiles>(o.seed, p.m_tiling, p.k_tiling, p.n_tiling);
    std::ostringstream d;
    d << "synthetic M=" << o.m << " N=K=" << o.n << " tiles " << o.tile_min << ".." << o.tile_max
      << " densities " << o.density_a << "/" << o.density_b << " seed " << o.seed;
    p.description = d.str();
    return p;
}

}  // namespace tessel::abcd
