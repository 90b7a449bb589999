// Atom clusters: k-means (problem/orbital_clusters) on the nuclei, then the shells gathered.
#include "apps/ccsd_abcd/integrals/atom_clusters.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace tessel::abcd {

AoClusters cluster_atoms(const AoBasis& basis, const XyzMolecule& mol, size_type cluster_size, std::uint64_t seed) {
    if (cluster_size < 1) TESSEL_INVALID_INPUT("--cluster-size", 0, "must be positive");
    std::vector<Point3> points;
    for (const auto& a : mol.atoms) points.push_back(a.position);
    const size_type natoms = static_cast<size_type>(points.size());
    const size_type k = std::clamp<size_type>((basis.functions + cluster_size / 2) / cluster_size, 1, natoms);
    AoClusters out;
    out.atoms = kmeans_clusters(points, k, seed);
    std::vector<size_type> cluster_of(static_cast<std::size_t>(natoms), 0);
    for (size_type c = 0; c < out.atoms.count(); ++c)
        for (size_type a : out.atoms.members[c]) cluster_of[a] = c;
    out.shells.resize(static_cast<std::size_t>(out.atoms.count()));
    for (size_type s = 0; s < static_cast<size_type>(basis.shells.size()); ++s)
        out.shells[cluster_of[basis.shell_atom[s]]].push_back(s);
    std::vector<size_type> sizes;
    for (const auto& shells : out.shells) {
        size_type n = 0;
        for (size_type s : shells) {
            for (size_type f = 0; f < static_cast<size_type>(basis.shells[s].size()); ++f)
                out.libint_index.push_back(basis.first_function[s] + f);
            n += static_cast<size_type>(basis.shells[s].size());
        }
        sizes.push_back(n);
    }
    out.functions = Tiling::from_sizes(std::move(sizes), "AO clusters");
    return out;
}

}  // namespace tessel::abcd
