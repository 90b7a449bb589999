// Candidate tilings: other cluster sizes for the molecule, merged tiles for the rest.
#include "apps/ccsd_abcd/advice/tiling_candidates.hpp"

#include <algorithm>

#include "apps/ccsd_abcd/advice/tile_merge.hpp"

namespace tessel::abcd {

std::vector<size_type> molecule_cluster_sizes(size_type given) {
    std::vector<size_type> sizes{4, 6, 8, 12, 16, 20, 26, 32, 40, 52, 64};
    if (std::find(sizes.begin(), sizes.end(), given) == sizes.end()) sizes.push_back(given);
    std::sort(sizes.begin(), sizes.end());
    return sizes;
}

std::vector<TilingCandidate> tiling_candidates(const Problem& problem, const MoleculeOptions* molecule) {
    std::vector<TilingCandidate> out;
    if (molecule) {
        size_type previous_tiles = -1;
        for (size_type s : molecule_cluster_sizes(molecule->cluster_size)) {
            MoleculeOptions o = *molecule;
            o.cluster_size = s;
            Problem p = molecule_problem(o);
            // Sizes that give the same clusters as a smaller one add nothing.
            if (p.k_tiling.count() == previous_tiles && s != molecule->cluster_size) continue;
            previous_tiles = p.k_tiling.count();
            p.precision = problem.precision;
            out.push_back({"cluster " + std::to_string(s), s, std::move(p)});
        }
        return out;
    }
    const size_type most = std::max({problem.m_tiling.count(), problem.k_tiling.count(), problem.n_tiling.count()});
    for (size_type f : {1, 2, 3, 4, 6, 8}) {
        if (f > 1 && f >= most * 2) break;  // everything in one or two tiles already
        out.push_back({"merge x" + std::to_string(f), f, merge_tiles(problem, f)});
    }
    return out;
}

}  // namespace tessel::abcd
