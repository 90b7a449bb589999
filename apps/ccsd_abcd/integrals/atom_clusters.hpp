// The AO index range tiled by clusters of atoms: k-means on the atom positions, every atom's
// shells kept together, the functions renumbered cluster by cluster.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/ccsd_abcd/integrals/basis_library.hpp"
#include "apps/ccsd_abcd/problem/orbital_clusters.hpp"
#include "apps/ccsd_abcd/problem/tiling.hpp"

namespace tessel::abcd {

struct AoClusters {
    Clusters atoms;                                   ///< k-means clusters of the atoms
    std::vector<std::vector<size_type>> shells;       ///< shells of each cluster, in cluster order
    Tiling functions;                                 ///< functions per cluster
    /// libint_index[p]: libint's number of the p-th function in cluster order.
    std::vector<size_type> libint_index;
};

/// About functions / cluster_size clusters (at least 1, at most one per atom) by k-means on the
/// atom positions (seeded), shells in the basis's order within a cluster. InvalidInput for
/// cluster_size < 1.
AoClusters cluster_atoms(const AoBasis& basis, const XyzMolecule& mol, size_type cluster_size, std::uint64_t seed);

}  // namespace tessel::abcd
