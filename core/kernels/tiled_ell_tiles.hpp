// Tiled-ELL SpMM on column tiles: B and C stored as consecutive register tiles of columns (the
// layout of sparse DNN activations), with the live columns of C as a by-product and the
// input's live columns gathered on the way in (compaction fused into the product).
#pragma once

#include <cstdint>

#include "core/formats/csr.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/types.hpp"

namespace tessel {

/// `count` columns of a rows x count matrix as tiles of `width` columns: tile t is a rows x
/// width row-major block at data + t·rows·width; lanes past `count` in the last tile are padding.
template <typename ValueType>
struct TileBatchView {
    ValueType* data = nullptr;
    size_type rows = 0;
    int width = 16;
    size_type count = 0;

    size_type tiles() const { return (count + width - 1) / width; }
    size_type tile_size() const { return rows * width; }
    ValueType* tile(size_type t) const { return data + t * tile_size(); }
    operator TileBatchView<const ValueType>() const { return {data, rows, width, count}; }
};

namespace cpu {

/// Tile widths compiled for the tile drivers (a subset of register_factors: whole vectors).
inline constexpr int tile_widths[] = {8, 12, 16, 32, 64};

/// True when `width` is one of tile_widths.
bool tile_width_supported(int width);

/// out tile t := epilogue(A·in tile t) for every tile; A is rows x rows' (out.rows x in.rows).
/// With `from` (out.count entries), column j of the input is column from[j] of `in` (the
/// compaction of the previous product, gathered per tile into a per-thread buffer; needs
/// tiles_can_gather(out.count, width)). live_masks[t] (out.tiles() words) gets bit r set when
/// column t·width + r of out has a nonzero. Parallel over tiles, or over (tile, block) pairs
/// when tiles are few. Throws DimensionMismatch, InvalidInput (width).
template <typename ValueType, typename IndexType>
void spmm_tiled_ell_tiles(const TiledEll<ValueType, IndexType>& a, TileBatchView<const ValueType> in,
                          TileBatchView<ValueType> out, const Epilogue<ValueType>& epilogue,
                          std::uint64_t* live_masks, const size_type* from = nullptr);

/// True when spmm_tiled_ell_tiles can gather for `count` columns (enough tiles for every thread).
bool tiles_can_gather(size_type count, int width);

/// The same with a sparse input: column j of B is row ids[j] of `bt` (bt is B transposed, in
/// CSR), densified tile by tile in a per-thread buffer. out.count columns.
template <typename ValueType, typename IndexType>
void spmm_tiled_ell_tiles_sparse(const TiledEll<ValueType, IndexType>& a, const Csr<ValueType, IndexType>& bt,
                                 const std::int64_t* ids, TileBatchView<ValueType> out,
                                 const Epilogue<ValueType>& epilogue, std::uint64_t* live_masks);

}  // namespace cpu

}  // namespace tessel
