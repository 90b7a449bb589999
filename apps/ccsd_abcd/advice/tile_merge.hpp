// Coarser tilings of the same product: every `factor` consecutive tiles of M, K and N combined
// (the candidates of the tiling advice for generated and stored problems). A merged tile is
// non-zero when any of its tiles is; its values are those of its tiles and zero elsewhere, so
// C = A·B is the same product, computed with larger GEMMs and more zeros.
#pragma once

#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

/// Tile t of the result covers tiles [t·factor, min((t+1)·factor, count)) of `tiling`.
/// Throws InvalidInput "--tiling: the merge factor must be at least 1" for factor < 1.
Tiling merge_tiling(const Tiling& tiling, size_type factor);

/// The shape of `shape` over tilings merged by `factor` on both sides.
TileShape merge_shape(const TileShape& shape, size_type factor, const std::string& what);

/// The problem with its three tilings merged by `factor` (factor 1: the same tiles). The
/// values come from the problem's own tile source, tile by tile.
Problem merge_tiles(const Problem& problem, size_type factor);

}  // namespace tessel::abcd
