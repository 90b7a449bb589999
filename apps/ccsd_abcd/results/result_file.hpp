// The result R = C in HDF5: its tilings, shape and tile norms, and its tiles on request.
#pragma once

#include <string>
#include <vector>

#include "apps/ccsd_abcd/executor/tile_store.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

/// Writes (replacing `path` atomically):
///   /                attributes format = "tessel-abcd result", problem (description), flops
///   /r               attributes rows, cols (M, N)
///   /r/row_tiling, /r/col_tiling  int64 tile sizes
///   /r/tiles         int64 [nnz, 2]: (tile row, tile col) of the non-zero tiles of R
///   /r/norms         float64 [nnz]: Frobenius norm of every tile
///   /r/values        float64, only when `tiles` is given: the tiles in /r/tiles order, each
///                    column-major
/// Throws Hdf5Error, InvalidInput.
template <typename ValueType>
void write_result(const std::string& path, const Problem& problem, const TileShape& c_shape,
                  const std::vector<double>& norms, double flops, const TileStore<ValueType>* tiles);

}  // namespace tessel::abcd
