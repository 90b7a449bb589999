// Generator 2: a quasi-one-dimensional alkane C_L H_{2L+2} (like the paper's C65H132), its
// orbitals clustered into tiles, and the block-sparse shapes of T, V that locality gives.
#pragma once

#include <cstdint>
#include <string>

#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

struct MoleculeOptions {
    int length = 4;              ///< carbons L of the chain C_L H_{2L+2}
    std::string basis = "svp";   ///< "svp" (def2-SVP: 14 functions per C, 5 per H) or "minimal" (5, 1)
    size_type cluster_size = 26; ///< target orbitals per cluster (tile) in both ranges
    double v_cutoff = 4.5;       ///< Å: V(cd, ab) ≠ 0 when gap(c, a) and gap(d, b) are below it
    double t_cutoff = 6.5;       ///< Å: T(ij, cd) ≠ 0 when gap(i, c) and gap(j, d) are below it
    double pair_cutoff = 15.0;   ///< Å: only occupied cluster pairs ij with gap(i, j) below it are kept
    std::uint64_t seed = 1;
};

/// What the generator built (for the report).
struct MoleculeSummary {
    int carbons = 0, hydrogens = 0;
    size_type occupied = 0;      ///< O: localised valence orbitals (bonds), frozen core
    size_type unoccupied = 0;    ///< U: atomic-orbital basis functions
    size_type occupied_clusters = 0, ao_clusters = 0;
    size_type pairs = 0, pairs_kept = 0;  ///< occupied cluster pairs ij, and those kept
    double chain_length = 0;     ///< Å, end to end
};

/// The ABCD problem of the chain: atoms on a zig-zag backbone (C-C 1.54 Å, C-H 1.09 Å), one
/// localised occupied orbital per bond (O = 3L + 1), the basis functions on their atoms
/// (U = 24L + 10 for def2-SVP: L = 65 gives the paper's O = 196, U = 1570). Occupied orbitals
/// and basis functions are clustered by k-means into tiles of about cluster_size; the fused
/// ranges are ij (kept pairs, M = Σ |i||j|), cd and ab (all pairs, N = K = U²). Shapes:
/// T(ij, cd) ≠ 0 iff gap(i, c) < t_cutoff and gap(j, d) < t_cutoff; V(cd, ab) ≠ 0 iff
/// gap(c, a) < v_cutoff and gap(d, b) < v_cutoff, where gap is the distance between the
/// clusters' extents. Tile values from the seeded function (as the paper's GPU runs fill the
/// real shapes with random data). Throws InvalidInput for bad options.
Problem molecule_problem(const MoleculeOptions& options, MoleculeSummary* summary = nullptr);

}  // namespace tessel::abcd
