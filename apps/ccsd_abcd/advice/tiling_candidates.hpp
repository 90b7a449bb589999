// The candidate tilings of a problem for the tile-size advice: for the molecule generator,
// the chain made with other cluster sizes (the tiles are the clusters); for synthetic and
// stored problems, consecutive tiles merged by 1, 2, 3, 4, 6, 8.
#pragma once

#include <string>
#include <vector>

#include "apps/ccsd_abcd/problem/molecule_generator.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

struct TilingCandidate {
    std::string label;       ///< "cluster 8", "merge x2"
    size_type parameter = 0; ///< the cluster size or the merge factor
    Problem problem;
};

/// Cluster sizes tried for the molecule (the given one added when it is not among them).
std::vector<size_type> molecule_cluster_sizes(size_type given);

/// The candidates: `molecule` non-null means `problem` came from the molecule generator with
/// these options. Every candidate keeps the problem's precision.
std::vector<TilingCandidate> tiling_candidates(const Problem& problem, const MoleculeOptions* molecule);

}  // namespace tessel::abcd
