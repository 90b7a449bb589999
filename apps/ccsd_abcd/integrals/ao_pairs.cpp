// Pair tiles of the folded AO pair index.
#include "apps/ccsd_abcd/integrals/ao_pairs.hpp"

namespace tessel::abcd {

namespace {

// Whether the local functions (l, s) of tile t are one of its entries.
bool holds(const AoPairTile& t, size_type l, size_type s) {
    if (t.c != t.d) return true;
    return t.sign > 0 ? l <= s : l < s;
}

}  // namespace

std::vector<std::int64_t> AoPairs::local_index(size_type t) const {
    const AoPairTile& p = tiles[static_cast<std::size_t>(t)];
    const size_type nc = clusters.size(p.c), nd = clusters.size(p.d);
    std::vector<std::int64_t> out(static_cast<std::size_t>(nc * nd), -1);
    std::int64_t x = 0;
    for (size_type l = 0; l < nc; ++l)
        for (size_type s = 0; s < nd; ++s)
            if (holds(p, l, s)) out[static_cast<std::size_t>(l * nd + s)] = x++;
    return out;
}

std::int64_t AoPairs::partner(size_type t) const {
    const AoPairTile& p = tiles[static_cast<std::size_t>(t)];
    const auto other = static_cast<std::int64_t>(t) + p.sign;  // + comes right before -
    if (other < 0 || other >= static_cast<std::int64_t>(tiles.size())) return -1;
    const AoPairTile& q = tiles[static_cast<std::size_t>(other)];
    return q.c == p.c && q.d == p.d ? other : -1;
}

AoPairs make_ao_pairs(const Tiling& clusters) {
    AoPairs out;
    out.clusters = clusters;
    std::vector<size_type> sizes;
    for (size_type c = 0; c < clusters.count(); ++c)
        for (size_type d = c; d < clusters.count(); ++d)
            for (int sign : {1, -1}) {
                const AoPairTile t{c, d, sign};
                size_type n = 0;
                for (size_type l = 0; l < clusters.size(c); ++l)
                    for (size_type s = 0; s < clusters.size(d); ++s)
                        if (holds(t, l, s)) {
                            out.first.push_back(clusters.offset(c) + l);
                            out.second.push_back(clusters.offset(d) + s);
                            ++n;
                        }
                if (n == 0) continue;  // c = d with one function: no pair λ < σ
                out.tiles.push_back(t);
                sizes.push_back(n);
            }
    out.tiling = Tiling::from_sizes(std::move(sizes), "AO pairs");
    return out;
}

}  // namespace tessel::abcd
