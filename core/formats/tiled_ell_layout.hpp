// The offsets of a tiled ELL matrix from the sizes of its blocks: shared by the builders that
// make the format without a CSR copy (tiled_ell_rows.cpp, tiled_ell_transpose.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/formats/tiled_ell.hpp"

namespace tessel::detail {

/// Sets the slots of row blocks [first, last) to padding (index 0, value 0).
template <typename V, typename I>
void clear_block_slots(TiledEll<V, I>& t, size_type first, size_type last) {
    const size_type warps = t.warps_per_block(), w = TiledEll<V, I>::warp_size;
    const auto begin = static_cast<std::size_t>(t.warpdispl[t.buffdispl[first] * warps] * w);
    const auto end = static_cast<std::size_t>(t.warpdispl[t.buffdispl[last] * warps] * w);
    std::fill(t.index.begin() + begin, t.index.begin() + end, std::uint16_t{0});
    if (t.stores_half())
        std::fill(t.half_values.begin() + begin, t.half_values.begin() + end, std::uint16_t{0});
    else
        std::fill(t.values.begin() + begin, t.values.begin() + end, V{0});
}

/// Fills buffdispl, mapdispl and warpdispl of `t` (rows, cols, nnz and config set) from each
/// block's distinct-column count and its slot widths per (stage, warp), and sizes map, index
/// and values, or half_values when `half` (padding: index 0, value 0; cleared by all threads,
/// since the first touch of gigabytes of fresh pages can cost seconds on one). Stage s of a
/// block holds distinct columns [s·buffer_entries, (s+1)·buffer_entries). `widths[b]` has
/// stages × warps entries. `clear` false leaves the slots unwritten for a caller that writes
/// every one, padding included (one pass over the bulk fewer).
template <typename V, typename I>
void lay_out_tiled_ell(TiledEll<V, I>& t, const std::vector<size_type>& distinct,
                       const std::vector<std::vector<size_type>>& widths, bool half = false, bool clear = true) {
    const size_type warps = t.warps_per_block(), be = t.config.buffer_entries;
    const size_type blocks = static_cast<size_type>(widths.size());
    t.buffdispl.assign(static_cast<std::size_t>(blocks + 1), 0);
    for (size_type b = 0; b < blocks; ++b)
        t.buffdispl[b + 1] = t.buffdispl[b] + static_cast<size_type>(widths[b].size()) / warps;
    t.mapdispl.assign(static_cast<std::size_t>(t.buffdispl.back() + 1), 0);
    t.warpdispl.assign(static_cast<std::size_t>(t.buffdispl.back() * warps + 1), 0);
    for (size_type b = 0; b < blocks; ++b) {
        const size_type stages = t.buffdispl[b + 1] - t.buffdispl[b];
        for (size_type s = 0; s < stages; ++s) {
            const size_type stage = t.buffdispl[b] + s;
            t.mapdispl[stage + 1] = t.mapdispl[stage] + std::min(be, std::max<size_type>(0, distinct[b] - s * be));
            for (size_type wi = 0; wi < warps; ++wi)
                t.warpdispl[stage * warps + wi + 1] = t.warpdispl[stage * warps + wi] + widths[b][s * warps + wi];
        }
    }
    const size_type slots = t.warpdispl.back();
    t.map.resize(static_cast<std::size_t>(t.mapdispl.back()));
    t.index.resize(static_cast<std::size_t>(slots * TiledEll<V, I>::warp_size));
    const auto stored = static_cast<std::size_t>(slots * TiledEll<V, I>::warp_size);
    if (half)
        t.half_values.resize(stored);
    else
        t.values.resize(stored);
    if (!clear) return;
#pragma omp parallel for schedule(static)
    for (size_type b = 0; b < blocks; ++b) clear_block_slots(t, b, b + 1);
}

/// Stages of a block with `distinct` columns (at least one, as tiled_ell_from_csr).
inline size_type stages_for(size_type distinct, size_type buffer_entries) {
    return std::max<size_type>(1, (distinct + buffer_entries - 1) / buffer_entries);
}

}  // namespace tessel::detail
