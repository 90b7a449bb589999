// Problem files (HDF5): the tilings and shapes of A and B, and optionally their tiles, so that a
// problem can be reused, shared and compared with other codes.
#pragma once

#include <string>

#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

/// Writes `problem` to `path` (replaced atomically):
///   /                 attributes format = "tessel-abcd problem", version = 1, description, seed
///   /a, /b            attributes rows, cols: the element extents (M x K, K x N)
///   /a/row_tiling ... int64 tile sizes (/a/row_tiling, /a/col_tiling, /b/row_tiling, /b/col_tiling)
///   /a/tiles, /b/tiles  int64 [nnz, 2]: (tile row, tile col) of every non-zero tile
///   /a/values, /b/values  float64, only with `with_values`: the tiles in the order of
///                     /x/tiles, each column-major (all of B: meant for small problems)
/// Throws Hdf5Error, InvalidInput.
void save_problem(const Problem& problem, const std::string& path, bool with_values);

/// Reads a problem written by save_problem. Tile values come from /a/values and /b/values when
/// present, otherwise from the seeded function with the stored seed. Throws InvalidInput naming
/// the file and dataset (not a problem file, tilings that do not cover their extent, zero or
/// negative tile sizes, tiles outside the grid or listed twice), DimensionMismatch when A's
/// column tiling is not B's row tiling, Hdf5Error.
Problem load_problem(const std::string& path);

}  // namespace tessel::abcd
