// The app's layer on core's column-tile kernel (core/kernels/tiled_ell_tiles.hpp): the
// activations' tiles are TileBatchViews, the image ids follow the compaction here.
#include "apps/spdnn/engines/fused_layer_kernels.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/kernels/tiled_ell_tiles.hpp"

namespace tessel::spdnn {

namespace {

TileBatchView<const Value> view_of(const TileActivations& a) {
    return {a.tile(0), a.neurons(), a.tile_width(), a.count()};
}

TileBatchView<Value> view_of(TileActivations& a) {
    return {a.tile(0), a.neurons(), a.tile_width(), a.count()};
}

}  // namespace

bool fused_register_factor_supported(int register_factor) {
    return cpu::tile_width_supported(register_factor);
}

void fused_layer(const TiledEll<Value, Index>& wt, const TileActivations& in, TileActivations& out,
                 const Epilogue<Value>& epilogue, std::vector<std::uint64_t>& live_masks,
                 const std::vector<size_type>* from) {
    TESSEL_ENSURE_DIMS(out.neurons() == in.neurons() && out.tile_width() == in.tile_width(),
                       "fused_layer: input and output tiles differ");
    if (from) {
        out.resize(static_cast<size_type>(from->size()));
        for (std::size_t i = 0; i < from->size(); ++i) out.ids()[i] = in.ids()[(*from)[i]];
    } else {
        out.resize(in.count());
        std::copy(in.ids().begin(), in.ids().end(), out.ids().begin());
    }
    live_masks.assign(out.tiles(), 0);
    if (out.count() == 0) return;
    cpu::spmm_tiled_ell_tiles(wt, view_of(in), view_of(out), epilogue, live_masks.data(),
                              from ? from->data() : nullptr);
}

bool fused_layer_gathers(size_type live, int register_factor) {
    return cpu::tiles_can_gather(live, register_factor);
}

void fused_first_layer(const TiledEll<Value, Index>& wt, const Images& images, TileActivations& out,
                       const Epilogue<Value>& epilogue, std::vector<std::uint64_t>& live_masks) {
    live_masks.assign(out.tiles(), 0);
    if (out.count() == 0) return;
    cpu::spmm_tiled_ell_tiles_sparse(wt, images, out.ids().data(), view_of(out), epilogue, live_masks.data());
}

}  // namespace tessel::spdnn
