// The alkane chain: geometry, orbital centres, clustering and the shapes of T and V.
#include "apps/ccsd_abcd/problem/molecule_generator.hpp"

#include <cmath>
#include <sstream>

#include "apps/ccsd_abcd/problem/generator_size.hpp"
#include "apps/ccsd_abcd/problem/orbital_clusters.hpp"
#include "core/error.hpp"

namespace tessel::abcd {

namespace {

struct Chain {
    std::vector<Point3> carbons, hydrogens;
    std::vector<Point3> bonds;  // midpoints: one localised occupied orbital each
};

// Zig-zag backbone in the x-y plane (C-C 1.54 Å, angle 109.5°), two H per carbon above and
// below the plane, one more H at each end along the chain.
Chain build_chain(int length) {
    Chain ch;
    const double cc = 1.54, ch_len = 1.09;
    const double half_angle = 109.5 / 2 * M_PI / 180;
    const double dx = cc * std::sin(half_angle), dy = cc * std::cos(half_angle);
    for (int n = 0; n < length; ++n) ch.carbons.push_back({n * dx, (n % 2) * dy, 0.0});
    auto add_h = [&](const Point3& c, const Point3& dir) {
        const double norm = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        Point3 h{c[0] + ch_len * dir[0] / norm, c[1] + ch_len * dir[1] / norm, c[2] + ch_len * dir[2] / norm};
        ch.hydrogens.push_back(h);
        ch.bonds.push_back({(c[0] + h[0]) / 2, (c[1] + h[1]) / 2, (c[2] + h[2]) / 2});
    };
    for (int n = 0; n < length; ++n) {
        const double out = (n % 2) ? 1.0 : -1.0;  // away from the backbone
        add_h(ch.carbons[n], {0.0, 0.55 * out, 0.83});
        add_h(ch.carbons[n], {0.0, 0.55 * out, -0.83});
        if (n + 1 < length) {
            const auto& a = ch.carbons[n];
            const auto& b = ch.carbons[n + 1];
            ch.bonds.push_back({(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2});
        }
    }
    add_h(ch.carbons.front(), {-1.0, 0.0, 0.0});
    add_h(ch.carbons.back(), {1.0, 0.0, 0.0});
    return ch;
}

// The clusters within `cutoff` of cluster s (sorted).
std::vector<size_type> near(const Clusters& from, size_type s, const Clusters& to, double cutoff) {
    std::vector<size_type> out;
    for (size_type t = 0; t < to.count(); ++t)
        if (from.gap(s, to, t) < cutoff) out.push_back(t);
    return out;
}

Tiling tiling_of(const Clusters& c, const std::string& what) { return Tiling::from_sizes(c.sizes(), what); }

}  // namespace

Problem molecule_problem(const MoleculeOptions& o, MoleculeSummary* summary) {
    if (o.length < 1) TESSEL_INVALID_INPUT("--length", 0, "must be at least 1, not " + std::to_string(o.length));
    if (o.cluster_size < 1) TESSEL_INVALID_INPUT("--cluster-size", 0, "must be positive");
    for (auto [v, what] : {std::pair{o.v_cutoff, "--v-cutoff"}, std::pair{o.t_cutoff, "--t-cutoff"},
                           std::pair{o.pair_cutoff, "--pair-cutoff"}})
        if (!(v > 0)) TESSEL_INVALID_INPUT(what, 0, "must be a positive distance in Å");
    int per_c = 0, per_h = 0;
    if (o.basis == "svp") { per_c = 14; per_h = 5; }
    else if (o.basis == "minimal") { per_c = 5; per_h = 1; }
    else TESSEL_INVALID_INPUT("--basis", 0, "'" + o.basis + "' is not svp or minimal");

    check_molecule_size(o);  // before any allocation
    const Chain chain = build_chain(o.length);
    std::vector<Point3> functions;
    for (const auto& c : chain.carbons) functions.insert(functions.end(), per_c, c);
    for (const auto& h : chain.hydrogens) functions.insert(functions.end(), per_h, h);
    const auto nclusters = [&](size_type count) { return std::max<size_type>(1, (count + o.cluster_size / 2) / o.cluster_size); };
    const Clusters occ = kmeans_clusters(chain.bonds, nclusters(static_cast<size_type>(chain.bonds.size())), o.seed);
    const Clusters ao = kmeans_clusters(functions, nclusters(static_cast<size_type>(functions.size())), o.seed + 1);

    // Fused ranges: kept occupied pairs ij; all AO pairs cd (= ab).
    std::vector<std::pair<size_type, size_type>> pairs;
    for (size_type i = 0; i < occ.count(); ++i)
        for (size_type j = 0; j < occ.count(); ++j)
            if (occ.gap(i, j) < o.pair_cutoff) pairs.emplace_back(i, j);
    std::vector<size_type> m_sizes;
    for (auto [i, j] : pairs) m_sizes.push_back(static_cast<size_type>(occ.members[i].size() * occ.members[j].size()));
    const Tiling ao_tiling = tiling_of(ao, "AO clusters");
    Tiling mt = Tiling::from_sizes(m_sizes, "ij pairs");
    Tiling kt = fused_tiling(ao_tiling, ao_tiling);
    const size_type nu = ao.count();

    std::vector<std::vector<size_type>> near_t(static_cast<std::size_t>(occ.count())), near_v(static_cast<std::size_t>(nu));
    for (size_type i = 0; i < occ.count(); ++i) near_t[i] = near(occ, i, ao, o.t_cutoff);
    for (size_type c = 0; c < nu; ++c) near_v[c] = near(ao, c, ao, o.v_cutoff);

    std::vector<std::pair<size_type, size_type>> t_tiles, v_tiles;
    for (size_type r = 0; r < static_cast<size_type>(pairs.size()); ++r)
        for (auto c : near_t[pairs[r].first])
            for (auto d : near_t[pairs[r].second]) t_tiles.emplace_back(r, c * nu + d);
    for (size_type c = 0; c < nu; ++c)
        for (size_type d = 0; d < nu; ++d)
            for (auto a : near_v[c])
                for (auto b : near_v[d]) v_tiles.emplace_back(c * nu + d, a * nu + b);
    TileShape t_shape = TileShape::from_pairs(mt.count(), kt.count(), std::move(t_tiles), "T");
    TileShape v_shape = TileShape::from_pairs(kt.count(), kt.count(), std::move(v_tiles), "V");

    Problem p = make_problem(mt, kt, std::move(t_shape), kt, kt, std::move(v_shape));
    p.seed = o.seed;
    p.values = std::make_shared<GeneratedTiles>(o.seed, p.m_tiling, p.k_tiling, p.n_tiling);
    const int nh = static_cast<int>(chain.hydrogens.size());
    std::ostringstream d;
    d << "molecule C" << o.length << "H" << nh << " (" << o.basis << ", clusters of ~" << o.cluster_size
      << ", cutoffs V " << o.v_cutoff << " T " << o.t_cutoff << " pairs " << o.pair_cutoff << " Å) seed " << o.seed;
    p.description = d.str();
    if (summary) {
        summary->carbons = o.length;
        summary->hydrogens = nh;
        summary->occupied = static_cast<size_type>(chain.bonds.size());
        summary->unoccupied = static_cast<size_type>(functions.size());
        summary->occupied_clusters = occ.count();
        summary->ao_clusters = nu;
        summary->pairs = occ.count() * occ.count();
        summary->pairs_kept = static_cast<size_type>(pairs.size());
        summary->chain_length = chain.carbons.back()[0] - chain.carbons.front()[0] + 2 * 1.09;
    }
    return p;
}

}  // namespace tessel::abcd
