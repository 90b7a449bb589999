// Aᵀ in tiled ELL made straight from A in tiled ELL, in parallel, with no CSR copy of either.
#pragma once

#include "core/formats/tiled_ell.hpp"

namespace tessel {

/// The tiled ELL form of Aᵀ cut by `config`, from the tiled ELL form of A: array for array
/// tiled_ell_from_csr(Aᵀ, config) where Aᵀ is the transpose of the CSR matrix `a` was built
/// from, with each row's columns ascending (entries of one column in A's row order). Stored
/// zeros cannot be told from padding and are left out (an A with none gives the same nnz).
/// Three parallel passes over A (each thread a run of A's blocks): the distinct rows of A per
/// block of Aᵀ, the entries per (row, stage) of Aᵀ, then every entry to its slot. Memory
/// beyond A and the result: Aᵀ's maps once more and two counters per (row, stage) and thread.
/// The result does not depend on the thread count; half values stay half. Throws InvalidInput
/// for a bad config.
template <typename ValueType, typename IndexType>
TiledEll<ValueType, IndexType> tiled_ell_transpose(const TiledEll<ValueType, IndexType>& a,
                                                   const TiledEllConfig& config = {});

/// Aᵀ's layout alone: what tiled_ell_transpose(a, config) gives but the slots (buffdispl,
/// mapdispl, map, warpdispl, nnz; index, values and half_values empty), for a device that fills
/// the slots from its own copy of A (SpmmOperator::transposed_on_device). The first two passes
/// of tiled_ell_transpose, under half its time. Throws InvalidInput for a bad config.
/// Entries of the slots as the layout counts them (stored() counts the slot array, which a
/// layout from tiled_ell_transpose_layout does not have).
template <typename ValueType, typename IndexType>
size_type layout_stored(const TiledEll<ValueType, IndexType>& t) {
    return t.warpdispl.empty() ? 0 : t.warpdispl.back() * TiledEll<ValueType, IndexType>::warp_size;
}

template <typename ValueType, typename IndexType>
TiledEll<ValueType, IndexType> tiled_ell_transpose_layout(const TiledEll<ValueType, IndexType>& a,
                                                          const TiledEllConfig& config = {});

}  // namespace tessel
