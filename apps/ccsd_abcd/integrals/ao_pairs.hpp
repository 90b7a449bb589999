// The AO pair index λσ of the ladder GEMM, folded by the symmetry of the integrals. With
// B(λσ, μν) = (λμ|σν) = B(σλ, νμ), the product R(μν) = Σ_λσ T(λσ) B(λσ, μν) splits into a part
// symmetric and a part antisymmetric in μν,
//   R±(μν) = (R(μν) ± R(νμ)) / 2 = Σ_{λ<=σ} A±(λσ) B±(λσ, μν),
//   B±(λσ, μν) = ((λμ|σν) ± (λν|σμ)) / 2,
//   A+(λσ) = T(λσ) + T(σλ) (λ ≠ σ), T(λλ);  A-(λσ) = T(λσ) - T(σλ) (λ < σ only),
// so that each of the two products runs over about half of the pairs λσ and half of the pairs
// μν: a quarter of the flops of the unfolded product each, half in all. A pair tile is a cluster
// pair c <= d with a sign; its entries are λ in c, σ in d (λ major), and when c = d only λ <= σ
// (+) or λ < σ (-). B± is block diagonal in the sign: tiles of different signs are zero.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/ccsd_abcd/problem/tiling.hpp"

namespace tessel::abcd {

struct AoPairTile {
    size_type c = 0, d = 0;  ///< clusters, c <= d
    int sign = 1;            ///< +1: the symmetric part, -1: the antisymmetric part
};

struct AoPairs {
    Tiling clusters;               ///< the functions of each atom cluster (cluster order)
    std::vector<AoPairTile> tiles; ///< the pair tiles, (c, d) major, + before -
    Tiling tiling;                 ///< their sizes: the K (and N) tiling of the ladder GEMM
    /// For entry x of the whole pair index: its AO functions (cluster order) λ = first[x],
    /// σ = second[x] (λ < σ unless λ = σ in a + tile).
    std::vector<size_type> first, second;
    /// The sign of the tile holding entry x.
    int sign_of(size_type x) const { return tiles[static_cast<std::size_t>(tiling.tile_of(x))].sign; }
    /// Tile t's entry of the functions (l, s), local to clusters c and d; -1 when it has none.
    std::vector<std::int64_t> local_index(size_type t) const;
    /// The tile of the same clusters and the other sign; -1 when there is none.
    std::int64_t partner(size_type t) const;
};

/// Every cluster pair c <= d, a + tile and (unless empty: c = d of one function) a - tile.
AoPairs make_ao_pairs(const Tiling& clusters);

}  // namespace tessel::abcd
