// cpu tiled-ELL SpMM on column tiles (core/kernels/tiled_ell_tiles.hpp): the sparse DNN layer
// kernel, with live-column masks and gathered (compacted) inputs. Compiled once per x86-64
// level (core/cpu/isa_region.hpp); the entry points that check the operands and pick the level
// are in core/cpu/spmm_entry_points.cpp.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "core/cpu/tiled_ell_block.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/tiled_ell_tiles.hpp"

TESSEL_CPU_ISA_BEGIN

namespace {

// Multiply-adds below which a product runs on the calling thread alone (about 0.1 ms): a
// team's wake-up and barrier would cost more, far more on a busy machine.
constexpr double parallel_work = 4e6;

template <typename V>
detail::InputColumns<V> tile_input(const V* tile, int width) {
    return {tile, size_type(width), 0, size_type(width)};
}

template <typename V>
detail::OutputColumns<V> tile_output(TileBatchView<V> out, size_type t) {
    return {out.tile(t), size_type(out.width), 0, size_type(out.width)};
}

// Tile t of the input: in place, or (with `from`) its lanes gathered from columns
// from[t·R + r] of `in` into `dense` (padding lanes zero).
template <int R, typename V>
const V* input_tile(TileBatchView<const V> in, const size_type* from, size_type count, size_type t, V* dense) {
    if (!from) return in.tile(t);
    const size_type lanes = std::min<size_type>(R, count - t * R);
    size_type offset[R];
    for (size_type r = 0; r < R; ++r) {
        const size_type s = r < lanes ? from[t * R + r] : -1;
        offset[r] = s < 0 ? -1 : (s / R) * in.tile_size() + s % R;
    }
    const V* base = in.data;
    for (size_type k = 0; k < in.rows; ++k) {
        V* o = dense + k * R;
        const V* b = base + k * R;
        for (size_type r = 0; r < R; ++r) o[r] = offset[r] >= 0 ? b[offset[r]] : V(0);
    }
    return dense;
}

template <int R, typename V, typename I>
void tiles_driver(const TiledEll<V, I>& a, TileBatchView<const V> in, TileBatchView<V> out, const Epilogue<V>& ep,
                  std::uint64_t* masks, const size_type* from) {
    const size_type tiles = out.tiles(), blocks = a.num_blocks();
    // Plenty of tiles: a thread keeps a tile for all its blocks (the tile stays in cache);
    // few tiles (late layers): (tile, block) pairs so that every thread has work. A gathered
    // input (from) has many tiles: the entry point checked it.
    const bool by_tile = tiles_can_gather(out.count, R);
    std::fill(masks, masks + tiles, 0);
    const bool team = double(tiles) * double(a.stored()) * R > parallel_work;
#pragma omp parallel if (team)
    {
        detail::BlockScratch<V> scratch;
        if (from) scratch.dense.resize(std::size_t(a.cols) * R);
        if (by_tile) {
#pragma omp for schedule(dynamic, 1)
            for (size_type t = 0; t < tiles; ++t) {
                const V* x = input_tile<R>(in, from, out.count, t, scratch.dense.data());
                std::uint64_t bits = 0;
                for (size_type b = 0; b < blocks; ++b)
                    bits |= detail::block_kernel<true, R>(a, b, tile_input(x, R), tile_output(out, t), ep, scratch);
                masks[t] = bits;
            }
        } else {
#pragma omp for schedule(dynamic, 1)
            for (size_type w = 0; w < tiles * blocks; ++w) {
                const size_type t = w / blocks, b = w % blocks;
                const std::uint64_t bits =
                    detail::block_kernel<true, R>(a, b, tile_input(in.tile(t), R), tile_output(out, t), ep, scratch);
#pragma omp atomic
                masks[t] |= bits;
            }
        }
    }
}

template <int R, typename V, typename I>
void sparse_driver(const TiledEll<V, I>& a, const Csr<V, I>& bt, const std::int64_t* ids, TileBatchView<V> out,
                   const Epilogue<V>& ep, std::uint64_t* masks) {
    const size_type tiles = out.tiles(), blocks = a.num_blocks(), n = a.cols;
    const auto& rp = bt.row_ptr();
    const auto& ci = bt.col_idx();
    const auto& va = bt.values();
#pragma omp parallel if (double(tiles) * double(a.stored()) * R > parallel_work)
    {
        detail::BlockScratch<V> scratch;
        scratch.dense.resize(std::size_t(n) * R);
#pragma omp for schedule(dynamic, 1)
        for (size_type t = 0; t < tiles; ++t) {
            V* dense = scratch.dense.data();
            std::fill(dense, dense + n * R, V(0));
            for (size_type r = 0; r < R && t * R + r < out.count; ++r) {
                const size_type row = ids[t * R + r];
                for (size_type e = rp[row]; e < rp[row + 1]; ++e) dense[size_type(ci[e]) * R + r] = va[e];
            }
            std::uint64_t bits = 0;
            for (size_type b = 0; b < blocks; ++b)
                bits |= detail::block_kernel<true, R>(a, b, tile_input<V>(dense, R), tile_output(out, t), ep, scratch);
            masks[t] = bits;
        }
    }
}

}  // namespace

/// cpu::spmm_tiled_ell_tiles at this level, on checked operands (a compiled tile width).
template <typename V, typename I>
void spmm_tiled_ell_tiles(const TiledEll<V, I>& a, TileBatchView<const V> in, TileBatchView<V> out,
                          const Epilogue<V>& ep, std::uint64_t* live_masks, const size_type* from) {
    detail::dispatch_register_factor(out.width, [&]<int R>() {
        if constexpr (R >= 8) tiles_driver<R>(a, in, out, ep, live_masks, from);
    });
}

/// cpu::spmm_tiled_ell_tiles_sparse at this level, on checked operands (a compiled tile width).
template <typename V, typename I>
void spmm_tiled_ell_tiles_sparse(const TiledEll<V, I>& a, const Csr<V, I>& bt, const std::int64_t* ids,
                                 TileBatchView<V> out, const Epilogue<V>& ep, std::uint64_t* live_masks) {
    detail::dispatch_register_factor(out.width, [&]<int R>() {
        if constexpr (R >= 8) sparse_driver<R>(a, bt, ids, out, ep, live_masks);
    });
}

#define TESSEL_INSTANTIATE(V, I)                                                                                 \
    template void spmm_tiled_ell_tiles(const TiledEll<V, I>&, TileBatchView<const V>, TileBatchView<V>,          \
                                       const Epilogue<V>&, std::uint64_t*, const size_type*);                   \
    template void spmm_tiled_ell_tiles_sparse(const TiledEll<V, I>&, const Csr<V, I>&, const std::int64_t*,      \
                                              TileBatchView<V>, const Epilogue<V>&, std::uint64_t*);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

TESSEL_CPU_ISA_END
