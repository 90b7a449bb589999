// A serial tiled-ELL builder written the obvious way (sort, unique, binary search per entry):
// the oracle that core's two-pass parallel builder must equal array for array.
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/formats/tiled_ell.hpp"

namespace tessel::test {

template <typename V, typename I>
TiledEll<V, I> tiled_ell_oracle(const Csr<V, I>& a, const TiledEllConfig& config) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type br = config.block_rows, be = config.buffer_entries, warps = br / w;
    TiledEll<V, I> t;
    t.rows = a.rows();
    t.cols = a.cols();
    t.nnz = a.nnz();
    t.config = config;
    t.buffdispl = {0};
    t.mapdispl = {0};
    t.warpdispl = {0};
    const auto& rp = a.row_ptr();
    for (size_type r0 = 0; r0 < a.rows(); r0 += br) {
        const size_type r1 = std::min(a.rows(), r0 + br);
        std::vector<I> map(a.col_idx().begin() + rp[r0], a.col_idx().begin() + rp[r1]);
        std::sort(map.begin(), map.end());
        map.erase(std::unique(map.begin(), map.end()), map.end());
        const size_type distinct = size_type(map.size());
        const size_type stages = std::max<size_type>(1, (distinct + be - 1) / be);
        t.buffdispl.push_back(t.buffdispl.back() + stages);
        for (size_type s = 0; s < stages; ++s) {
            const size_type lo = s * be, hi = std::min(distinct, lo + be);
            t.map.insert(t.map.end(), map.begin() + lo, map.begin() + hi);
            t.mapdispl.push_back(t.mapdispl.back() + (hi - lo));
            // Entries of each row that fall in this stage, in row order.
            std::vector<std::vector<std::pair<std::uint16_t, V>>> lanes(static_cast<std::size_t>(br));
            for (size_type i = r0; i < r1; ++i)
                for (size_type e = rp[i]; e < rp[i + 1]; ++e) {
                    const size_type pos = std::lower_bound(map.begin(), map.end(), a.col_idx()[e]) - map.begin();
                    if (pos >= lo && pos < hi) lanes[i - r0].push_back({std::uint16_t(pos - lo), a.values()[e]});
                }
            for (size_type wi = 0; wi < warps; ++wi) {
                size_type width = 0;
                for (size_type l = 0; l < w; ++l) width = std::max<size_type>(width, lanes[wi * w + l].size());
                const size_type first_slot = t.warpdispl.back();
                t.warpdispl.push_back(first_slot + width);
                t.index.resize(std::size_t((first_slot + width) * w), 0);
                t.values.resize(std::size_t((first_slot + width) * w), V{0});
                for (size_type l = 0; l < w; ++l)
                    for (size_type m = 0; m < size_type(lanes[wi * w + l].size()); ++m) {
                        t.index[(first_slot + m) * w + l] = lanes[wi * w + l][m].first;
                        t.values[(first_slot + m) * w + l] = lanes[wi * w + l][m].second;
                    }
            }
        }
    }
    return t;
}

/// Checks the structure of two tiled ELL matrices (sizes, blocks, stages, maps, slot rows)
/// array for array (Catch2 CHECKs; include catch.hpp first).
template <typename V, typename I>
void check_same_structure(const TiledEll<V, I>& mine, const TiledEll<V, I>& oracle) {
    CHECK(mine.rows == oracle.rows);
    CHECK(mine.nnz == oracle.nnz);
    CHECK(mine.buffdispl == oracle.buffdispl);
    CHECK(mine.mapdispl == oracle.mapdispl);
    CHECK(mine.map == oracle.map);
    CHECK(mine.warpdispl == oracle.warpdispl);
}

/// The structure and the slots.
template <typename V, typename I>
void check_same_tiled_ell(const TiledEll<V, I>& mine, const TiledEll<V, I>& oracle) {
    check_same_structure(mine, oracle);
    CHECK(mine.index == oracle.index);
    CHECK(mine.values == oracle.values);
}

}  // namespace tessel::test
