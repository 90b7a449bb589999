// The p x q process grid of the algorithm: A and C 2D-cyclic, B's columns per grid row.
#pragma once

#include <string>

#include "core/types.hpp"

namespace tessel::abcd {

/// p grid rows by q grid columns; rank r sits at (r / q, r mod q). Tile row i of A and C
/// belongs to grid row i mod p (the slice A^(i mod p) of the paper); A(i, k) is stored on
/// (i mod p, k mod q) and C(i, c) is returned to (i mod p, c mod q) (2D-cyclic).
struct ProcessGrid {
    int p = 1;
    int q = 1;

    int size() const { return p * q; }
    int rank_of(int row, int col) const { return row * q + col; }
    int row_of(int rank) const { return rank / q; }
    int col_of(int rank) const { return rank % q; }
    int grid_row_of_tile_row(size_type i) const { return static_cast<int>(i % p); }
    int a_owner(size_type i, size_type k) const { return rank_of(static_cast<int>(i % p), static_cast<int>(k % q)); }
    int c_owner(size_type i, size_type c) const { return rank_of(static_cast<int>(i % p), static_cast<int>(c % q)); }
    std::string describe() const { return std::to_string(p) + " x " + std::to_string(q); }

    /// "PxQ" (for example "2x3"), or "" for 1 x ranks. Throws InvalidInput "--grid: ..." when
    /// it does not parse, has a zero side, or needs more than `ranks` processes (fewer is
    /// allowed: the paper's pq <= P; the other ranks stay idle).
    static ProcessGrid parse(const std::string& text, int ranks);
};

}  // namespace tessel::abcd
