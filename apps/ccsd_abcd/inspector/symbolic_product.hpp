// The tile-level symbolic product of the shapes: which tiles of C are non-zero, and the flops
// and tile GEMMs of every tile of C (hence of every column of B), before any arithmetic.
#pragma once

#include <string>
#include <vector>

#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

struct SymbolicProduct {
    /// shape(C) = pattern(shape(A)·shape(B)): C(i, c) ≠ 0 iff some k has A(i, k) and B(k, c).
    TileShape c_shape;
    /// Per tile of C (shape order): f(i, c) = Σ_{k: A(i,k), B(k,c)} 2·m_i·k_k·n_c.
    std::vector<double> tile_flops;
    /// Per tile of C: the number of tile GEMMs A(i,k)·B(k,c) that update it.
    std::vector<size_type> tile_gemms;
    double flops = 0;     ///< Σ tile_flops: the useful flops of C = A·B
    size_type gemms = 0;  ///< Σ tile_gemms
    std::string kernel;   ///< which product computed it (for --verbose)
};

/// Runs the tile-level products with core's SpGEMM (cpu backend): the boolean product of the
/// shapes gives shape(C); the product of the shapes weighted with A(i,k) = m_i·k_k and
/// B(k,c) = n_c gives Σ_k m_i k_k n_c per tile of C (exact in double below 2^53); the product
/// with unit weights counts the GEMMs. Cost O(Σ_{A(i,k)} nnz(B(k,:))) at tile level.
SymbolicProduct symbolic_product(const Problem& problem);

/// f_c: the flops of column c of B restricted to the tile rows i of A with i mod p = row
/// (grid row `row` of p). With p = 1, the flops of the whole column.
std::vector<double> column_flops(const SymbolicProduct& product, size_type row, size_type p);

}  // namespace tessel::abcd
