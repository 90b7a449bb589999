// Tiled ELL construction in two parallel passes over the blocks (sizes, then every entry
// written once into the final arrays): per block its distinct columns found with a column
// marker (only they are sorted), cut into stages; warp-interleaved ELL per (stage, warp).
#include "core/formats/tiled_ell.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "core/formats/tiled_ell_layout.hpp"
#include "core/instantiate.hpp"

namespace tessel {

template <typename V, typename I>
size_type TiledEll<V, I>::max_stage_entries() const {
    size_type longest = 0;
    for (size_type s = 0; s < num_stages(); ++s)
        longest = std::max(longest, mapdispl[s + 1] - mapdispl[s]);
    return longest;
}

void check_tiled_ell_config(const TiledEllConfig& config) {
    if (config.block_rows <= 0 || config.block_rows % 32 != 0)
        TESSEL_INVALID_INPUT("tiled ELL config", 0,
                             "block_rows " + std::to_string(config.block_rows) + " is not a positive multiple of 32");
    if (config.buffer_entries < 1 || config.buffer_entries > 65536)
        TESSEL_INVALID_INPUT("tiled ELL config", 0,
                             "buffer_entries " + std::to_string(config.buffer_entries) +
                                 " outside 1..65536 (16-bit local indices)");
}

namespace {

/// Pass 1's result: per block its sorted distinct columns and the width of each (stage, warp).
template <typename I>
struct BlockShapes {
    std::vector<std::vector<I>> maps;
    std::vector<std::vector<size_type>> widths;
};

template <typename V, typename I>
BlockShapes<I> shape_blocks(const Csr<V, I>& a, size_type br, size_type be) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type warps = br / w, blocks = (a.rows() + br - 1) / br;
    const auto& rp = a.row_ptr();
    const I* ci = a.col_idx().data();
    BlockShapes<I> shapes{std::vector<std::vector<I>>(static_cast<std::size_t>(blocks)),
                          std::vector<std::vector<size_type>>(static_cast<std::size_t>(blocks))};
#pragma omp parallel
    {
        std::vector<size_type> seen(static_cast<std::size_t>(a.cols()), -1);  // block that last saw the column
        std::vector<I> position(static_cast<std::size_t>(a.cols()), 0);
        std::vector<size_type> count;
#pragma omp for schedule(dynamic, 4)
        for (size_type b = 0; b < blocks; ++b) {
            const size_type r0 = b * br, r1 = std::min(a.rows(), r0 + br);
            auto& map = shapes.maps[b];
            for (size_type e = rp[r0]; e < rp[r1]; ++e)
                if (seen[ci[e]] != b) {
                    seen[ci[e]] = b;
                    map.push_back(ci[e]);
                }
            std::sort(map.begin(), map.end());
            for (std::size_t i = 0; i < map.size(); ++i) position[map[i]] = static_cast<I>(i);
            const size_type stages = detail::stages_for(static_cast<size_type>(map.size()), be);
            count.assign(static_cast<std::size_t>(stages * br), 0);
            for (size_type i = r0; i < r1; ++i)
                for (size_type e = rp[i]; e < rp[i + 1]; ++e) ++count[(position[ci[e]] / be) * br + (i - r0)];
            auto& width = shapes.widths[b];
            width.assign(static_cast<std::size_t>(stages * warps), 0);
            for (size_type s = 0; s < stages; ++s)
                for (size_type r = 0; r < br; ++r)
                    width[s * warps + r / w] = std::max(width[s * warps + r / w], count[s * br + r]);
        }
    }
    return shapes;
}

/// The offsets and arrays of t from the block shapes (core's one layout, shared with the
/// builders without CSR); returns each block's first map entry.
template <typename V, typename I>
std::vector<size_type> lay_out(TiledEll<V, I>& t, const BlockShapes<I>& shapes) {
    const size_type blocks = static_cast<size_type>(shapes.maps.size());
    std::vector<size_type> distinct(static_cast<std::size_t>(blocks)), map_at(blocks + 1, 0);
    for (size_type b = 0; b < blocks; ++b) {
        distinct[b] = static_cast<size_type>(shapes.maps[b].size());
        map_at[b + 1] = map_at[b] + distinct[b];
    }
    detail::lay_out_tiled_ell(t, distinct, shapes.widths);
    return map_at;
}

/// Pass 2: every entry to its slot (padding stays value 0, index 0); frees the block maps.
template <typename V, typename I>
void fill_slots(TiledEll<V, I>& t, const Csr<V, I>& a, BlockShapes<I>& shapes, const std::vector<size_type>& map_at) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type br = t.config.block_rows, be = t.config.buffer_entries, warps = t.warps_per_block();
    const size_type blocks = static_cast<size_type>(shapes.maps.size());
    const auto& rp = a.row_ptr();
    const I* ci = a.col_idx().data();
    const V* va = a.values().data();
    // Raw pointers: SlotArray's writing operator[] checks for a view on every element.
    std::uint16_t* index = t.index.data();
    V* values = t.values.data();
#pragma omp parallel
    {
        std::vector<I> position(static_cast<std::size_t>(a.cols()), 0);
        std::vector<size_type> fill;
#pragma omp for schedule(dynamic, 4)
        for (size_type b = 0; b < blocks; ++b) {
            const size_type r0 = b * br, r1 = std::min(a.rows(), r0 + br);
            const auto& map = shapes.maps[b];
            std::copy(map.begin(), map.end(), t.map.begin() + map_at[b]);
            for (std::size_t i = 0; i < map.size(); ++i) position[map[i]] = static_cast<I>(i);
            const size_type first_stage = t.buffdispl[b], stages = t.buffdispl[b + 1] - first_stage;
            fill.assign(static_cast<std::size_t>(stages * br), 0);
            for (size_type i = r0; i < r1; ++i) {
                const size_type r = i - r0;
                for (size_type e = rp[i]; e < rp[i + 1]; ++e) {
                    const size_type pos = position[ci[e]], s = pos / be;
                    const size_type m = fill[s * br + r]++;
                    const size_type slot = (t.warpdispl[(first_stage + s) * warps + r / w] + m) * w + r % w;
                    index[slot] = static_cast<std::uint16_t>(pos - s * be);
                    values[slot] = va[e];
                }
            }
            std::vector<I>().swap(shapes.maps[b]);
        }
    }
}

}  // namespace

template <typename V, typename I>
TiledEll<V, I> tiled_ell_from_csr(const Csr<V, I>& a, const TiledEllConfig& config) {
    check_tiled_ell_config(config);
    TiledEll<V, I> t;
    t.rows = a.rows();
    t.cols = a.cols();
    t.nnz = a.nnz();
    t.config = config;
    BlockShapes<I> shapes = shape_blocks(a, config.block_rows, config.buffer_entries);
    const std::vector<size_type> map_at = lay_out(t, shapes);
    fill_slots(t, a, shapes, map_at);
    return t;
}

template <typename V, typename I>
void store_values_in_half(TiledEll<V, I>& a) {
    if (a.stores_half() || a.values.empty()) return;
    LargeArray<std::uint16_t> half(a.values.size());
    to_half(a.values.data(), static_cast<size_type>(a.values.size()), half.data(), "tiled ELL values");
    a.half_values = std::move(half);
    a.values.release();
}

template <typename V, typename I>
Csr<V, I> csr_from_tiled_ell(const TiledEll<V, I>& t) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    Coo<V, I> coo;
    coo.rows = t.rows;
    coo.cols = t.cols;
    const size_type warps = t.warps_per_block();
    for (size_type b = 0; b < t.num_blocks(); ++b)
        for (size_type s = t.buffdispl[b]; s < t.buffdispl[b + 1]; ++s)
            for (size_type wi = 0; wi < warps; ++wi)
                for (size_type m = t.warpdispl[s * warps + wi]; m < t.warpdispl[s * warps + wi + 1]; ++m)
                    for (size_type lane = 0; lane < w; ++lane) {
                        const size_type row = b * t.config.block_rows + wi * w + lane;
                        const V v = t.value(m * w + lane);
                        if (row >= t.rows || v == V{0}) continue;
                        coo.row.push_back(static_cast<I>(row));
                        coo.col.push_back(t.map[t.mapdispl[s] + t.index[m * w + lane]]);
                        coo.values.push_back(v);
                    }
    return csr_from_coo(coo, "tiled_ell");
}

#define TESSEL_INSTANTIATE(V, I)                                                             \
    template struct TiledEll<V, I>;                                                          \
    template TiledEll<V, I> tiled_ell_from_csr(const Csr<V, I>&, const TiledEllConfig&);     \
    template void store_values_in_half(TiledEll<V, I>&);                                     \
    template Csr<V, I> csr_from_tiled_ell(const TiledEll<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
