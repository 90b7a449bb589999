// The AO-driven ladder term R[i,j,a,b] = Σ_cd t2[i,j,c,d] (ac|bd), as MPQC and the PaRSEC paper
// compute it: the amplitudes go to the AO basis with the virtual coefficients,
// T(ij, λσ) = Σ_cd C[λ,c] t2[i,j,c,d] C[σ,d]; the block-sparse GEMM R(ij, μν) = Σ_λσ T(ij, λσ)
// (λμ|σν) runs with B's tiles made from libint2 on demand; and R comes back,
// R[i,j,a,b] = Σ_μν C[μ,a] R(ij, μν) C[ν,b]. Two symmetries of the integrals and amplitudes
// cut the GEMM to a quarter: rows ij only for i <= j (pair_rows.hpp), and the AO pairs folded
// into a symmetric and an antisymmetric part (ao_pairs.hpp).
#pragma once

#include <memory>
#include <string>

#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/executor/tile_store.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "apps/ccsd_abcd/integrals/amplitudes.hpp"
#include "apps/ccsd_abcd/integrals/eri_tiles.hpp"
#include "apps/ccsd_abcd/integrals/pair_rows.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

struct LadderOptions {
    std::string molecule_name;      ///< the XYZ file's name, for messages
    std::string basis;              ///< "cc-pvdz"
    std::string basis_dir;          ///< a package's basis sets (after $TESSEL_BASIS_DIR)
    double threshold = 1e-12;       ///< Schwarz screening, relative to the largest bound
    size_type cluster_size = 26;    ///< target basis functions per atom cluster (tile)
    size_type pair_rows = 256;      ///< target rows ij per tile of A and R
    bool all_pairs = false;         ///< every pair ij even when t2[i,j,c,d] = t2[j,i,d,c] (for comparisons)
    std::uint64_t seed = 1;         ///< k-means seeding
};

/// The ladder's block-sparse problem before any amplitude or B tile is made: the basis, the atom
/// clusters, the Schwarz bounds, the tilings and shapes (A dense, B screened).
struct LadderProblem {
    std::shared_ptr<const AoBasis> basis;
    std::shared_ptr<const AoClusters> clusters;
    std::shared_ptr<const SchwarzBounds> bounds;
    std::shared_ptr<const AoPairs> pairs;  ///< the folded pairs λσ (K) and μν (N)
    std::shared_ptr<EriTiles> tiles;  ///< Problem::values (A given by set_amplitudes)
    Problem problem;
    size_type nocc = 0;
    PairRows rows;  ///< the rows ij of A and R
};

/// Validates the threshold, loads the basis, clusters the atoms, bounds the integrals and makes
/// the problem for the rows ij of `rows` (M = nocc(nocc+1)/2 pairs i <= j, or nocc²). Throws
/// InvalidInput (basis, element, threshold).
LadderProblem make_ladder_problem(const XyzMolecule& mol, const PairRows& rows, const LadderOptions& o);

/// B after the Schwarz screening: its tiles of equal signs (the others are zero by symmetry) and
/// how many of them are kept; density: the kept fraction of their elements.
struct ScreenedB {
    size_type tiles = 0, kept_tiles = 0;
    double density = 0;
};
ScreenedB screened_b(const LadderProblem& lp);

/// Checks the amplitudes against the problem (InvalidInput "amp.h5:/c_vir: 25 rows, but basis
/// cc-pvdz has 24 functions on mol.xyz") and gives A = T(ij, λσ) to the tile source.
void set_amplitudes(LadderProblem& lp, const Amplitudes& amp, const std::string& where);

/// Tells the tile source which B tiles `rank`'s part of the plan makes.
void plan_b_tiles(LadderProblem& lp, const Plan& plan, int rank);

/// R[i,j,a,b] (row-major, t2's shape) from every tile of C = R(ij, μν) (shape `c_shape`); with
/// pairs i <= j, R[j,i,b,a] = R[i,j,a,b] fills the rest. Tile row by tile row (R in the AO basis
/// is never whole).
template <typename T>
std::vector<double> ladder_from_tiles(const LadderProblem& lp, const Amplitudes& amp, const TileShape& c_shape,
                                      const TileStore<T>& c_tiles);

/// The whole term on this process (no MPI): problem (pairs i <= j when t2 allows it and
/// o.all_pairs is false), plan, executor (`backend`), R.
std::vector<double> evaluate_ladder(const XyzMolecule& mol, const Amplitudes& amp, const LadderOptions& o,
                                    Backend backend = Backend::automatic);

}  // namespace tessel::abcd
