// The rows ij of A = T(ij, λσ) and of R(ij, μν). With t2[i,j,c,d] = t2[j,i,d,c] (every
// closed-shell amplitude a solver gives), T(ij, λσ) = T(ji, σλ) and R(ij, μν) = R(ji, νμ): only
// the pairs i <= j are contracted, nocc(nocc+1)/2 rows instead of nocc², which halves A, R and
// the GEMM. Amplitudes without that symmetry run on every pair.
#pragma once

#include <string>
#include <vector>

#include "apps/ccsd_abcd/integrals/amplitudes.hpp"
#include "apps/ccsd_abcd/problem/tiling.hpp"

namespace tessel::abcd {

/// Largest |t2[i,j,c,d] - t2[j,i,d,c]| over max |t2| that still counts as symmetric.
inline constexpr double pair_symmetry_tolerance = 1e-12;

struct PairRows {
    size_type nocc = 0;
    bool symmetric = true;  ///< rows are the pairs i <= j; else every (i, j), row i·nocc + j
    size_type count() const { return symmetric ? nocc * (nocc + 1) / 2 : nocc * nocc; }
    /// The (i, j) of every row, in row order: (0,0), (0,1), .., (0,n-1), (1,1), .. when symmetric.
    std::vector<std::pair<size_type, size_type>> pairs() const;
    /// Rows in tiles of about `target` (at least one row each).
    Tiling tiling(size_type target) const;
};

/// max |t2[i,j,c,d] - t2[j,i,d,c]| / max |t2| (0 for t2 = 0).
double pair_asymmetry(const Amplitudes& amp);

/// The rows for these amplitudes: i <= j when `allow_symmetry` and pair_asymmetry() is within
/// pair_symmetry_tolerance, else every pair, with `note` (if given) saying why in one line
/// ("t2 is not symmetric: ..."); `note` is left empty when the symmetry is used or not allowed.
PairRows choose_pair_rows(const Amplitudes& amp, bool allow_symmetry, std::string* note = nullptr);

}  // namespace tessel::abcd
