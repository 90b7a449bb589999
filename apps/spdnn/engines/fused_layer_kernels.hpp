// The app's fused layer on the CPU: Y_k tile := min(cap, max(0, Wᵀ·Y_{k-1} tile + bias)) with
// Wᵀ in tiled ELL, R images per register tile, the live-image mask as a by-product. The kernel
// is core's (cpu::spmm_tiled_ell_tiles); this adapts the activations and their image ids.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/spdnn/engines/tile_activations.hpp"
#include "apps/spdnn/network/network.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/kernels/tiled_ell_tiles.hpp"

namespace tessel::spdnn {

/// Images per register tile compiled for the fused kernel (core's cpu::tile_widths). 12 is the
/// 2020 champion's GPU factor; on AVX-512 CPUs 16 and 32 fill whole vector registers.
inline constexpr auto& fused_register_factors = cpu::tile_widths;

/// True when R is one of fused_register_factors.
bool fused_register_factor_supported(int register_factor);

/// For each tile t of `in` (N x R images): out tile t := epilogue(Wᵀ·in tile t), where wt is
/// Wᵀ (N x N, row = output neuron) in tiled ELL; per row the sum runs over the ELL slots in
/// order (ascending input neuron within a stage), exactly as reference::spmm sums a row of
/// sorted CSR. live_masks[t] (resized to in.tiles()) gets bit r set when image t·R + r has
/// a nonzero output. out is resized to in.count() (ids copied). Parallel over tiles, or over
/// (tile, block) pairs when tiles are few.
/// With `from`, the input is compacted on the way in: image i of the input is image from[i]
/// of `in` (each tile gathered into a per-thread buffer), out gets from->size() images; this
/// needs fused_layer_gathers(from->size(), R).
/// Throws DimensionMismatch when N differs, InvalidInput for an unsupported R.
void fused_layer(const TiledEll<Value, Index>& wt, const TileActivations& in, TileActivations& out,
                 const Epilogue<Value>& epilogue, std::vector<std::uint64_t>& live_masks,
                 const std::vector<size_type>* from = nullptr);

/// True when fused_layer can gather its input for `live` images (enough tiles to run tile by
/// tile on every thread).
bool fused_layer_gathers(size_type live, int register_factor);

/// The first layer straight from the sparse images: lane r of tile t is images row
/// out.ids()[t·R + r] (out.ids() set by the caller, out resized to that count); each tile is
/// densified in a per-thread buffer (staging) and then runs like fused_layer.
void fused_first_layer(const TiledEll<Value, Index>& wt, const Images& images, TileActivations& out,
                       const Epilogue<Value>& epilogue, std::vector<std::uint64_t>& live_masks);

}  // namespace tessel::spdnn
