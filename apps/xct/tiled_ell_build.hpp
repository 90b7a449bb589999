// Tiled ELL construction for the projection matrices in two parallel passes (sizes, then
// fill in place): the same TiledEll as core's tiled_ell_from_csr, built in O(nnz) per block
// (a column marker instead of sorting every entry) and without a second copy of the result.
#pragma once

#include "apps/xct/system_matrix.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel::xct {

/// Equal, array for array, to tiled_ell_from_csr(a, config). Pass 1 (parallel over blocks):
/// the block's distinct columns through a per-thread marker array, sorted (only they are), and
/// the ELL width of every (stage, warp); then prefix sums; pass 2 (parallel): every entry written
/// once into the final arrays. Peak memory: a, the result, and a column-sized marker per thread.
/// Throws InvalidInput for a bad configuration (as core).
template <typename ValueType>
TiledEll<ValueType, Index> build_tiled_ell(const Csr<ValueType, Index>& a, const TiledEllConfig& config);

}  // namespace tessel::xct
