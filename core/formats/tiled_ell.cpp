// Tiled ELL construction: per block, sorted unique input columns cut into stages, then
// warp-interleaved ELL per (stage, warp). Blocks are independent and built in parallel.
#include "core/formats/tiled_ell.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "core/instantiate.hpp"

namespace tessel {

template <typename V, typename I>
size_type TiledEll<V, I>::max_stage_entries() const {
    size_type longest = 0;
    for (size_type s = 0; s < num_stages(); ++s)
        longest = std::max(longest, mapdispl[s + 1] - mapdispl[s]);
    return longest;
}

namespace {

// One block's share of the arrays, built independently and concatenated afterwards.
template <typename V, typename I>
struct BlockPart {
    std::vector<I> map;
    std::vector<size_type> stage_map_size;     // per stage
    std::vector<size_type> warp_width;         // per (stage, warp)
    std::vector<std::uint16_t> index;
    std::vector<V> values;
};

template <typename V, typename I>
BlockPart<V, I> build_block(const Csr<V, I>& a, size_type first_row, size_type block_rows,
                            size_type buffer_entries) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type warps = block_rows / w;
    const size_type last_row = std::min(a.rows(), first_row + block_rows);
    const auto& rp = a.row_ptr();
    const auto& ci = a.col_idx();
    const auto& va = a.values();

    BlockPart<V, I> part;
    part.map.assign(ci.begin() + rp[first_row], ci.begin() + rp[last_row]);
    std::sort(part.map.begin(), part.map.end());
    part.map.erase(std::unique(part.map.begin(), part.map.end()), part.map.end());
    const size_type distinct = static_cast<size_type>(part.map.size());
    const size_type stages = std::max<size_type>(1, (distinct + buffer_entries - 1) / buffer_entries);
    part.stage_map_size.resize(stages);
    for (size_type s = 0; s < stages; ++s)
        part.stage_map_size[s] = std::min(buffer_entries, distinct - s * buffer_entries);

    // Count entries per (stage, row); the warp width is the longest lane.
    std::vector<size_type> row_stage_count(block_rows * stages, 0);
    std::vector<size_type> position(rp[last_row] - rp[first_row]);
    for (size_type i = first_row; i < last_row; ++i)
        for (size_type e = rp[i]; e < rp[i + 1]; ++e) {
            const size_type pos =
                std::lower_bound(part.map.begin(), part.map.end(), ci[e]) - part.map.begin();
            position[e - rp[first_row]] = pos;
            ++row_stage_count[(pos / buffer_entries) * block_rows + (i - first_row)];
        }
    part.warp_width.assign(stages * warps, 0);
    for (size_type s = 0; s < stages; ++s)
        for (size_type r = 0; r < block_rows; ++r) {
            auto& width = part.warp_width[s * warps + r / w];
            width = std::max(width, row_stage_count[s * block_rows + r]);
        }
    std::vector<size_type> warp_offset(stages * warps + 1, 0);
    std::partial_sum(part.warp_width.begin(), part.warp_width.end(), warp_offset.begin() + 1);
    part.index.assign(warp_offset.back() * w, 0);
    part.values.assign(warp_offset.back() * w, V{0});

    std::vector<size_type> fill(block_rows * stages, 0);
    for (size_type i = first_row; i < last_row; ++i) {
        const size_type r = i - first_row;
        for (size_type e = rp[i]; e < rp[i + 1]; ++e) {
            const size_type pos = position[e - rp[first_row]];
            const size_type s = pos / buffer_entries;
            const size_type m = fill[s * block_rows + r]++;
            const size_type slot = (warp_offset[s * warps + r / w] + m) * w + r % w;
            part.index[slot] = static_cast<std::uint16_t>(pos - s * buffer_entries);
            part.values[slot] = va[e];
        }
    }
    return part;
}

}  // namespace

template <typename V, typename I>
TiledEll<V, I> tiled_ell_from_csr(const Csr<V, I>& a, const TiledEllConfig& config) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    if (config.block_rows <= 0 || config.block_rows % w != 0)
        TESSEL_INVALID_INPUT("tiled ELL config", 0,
                             "block_rows " + std::to_string(config.block_rows) +
                                 " is not a positive multiple of 32");
    if (config.buffer_entries < 1 || config.buffer_entries > 65536)
        TESSEL_INVALID_INPUT("tiled ELL config", 0,
                             "buffer_entries " + std::to_string(config.buffer_entries) +
                                 " outside 1..65536 (16-bit local indices)");
    TiledEll<V, I> t;
    t.rows = a.rows();
    t.cols = a.cols();
    t.nnz = a.nnz();
    t.config = config;
    const size_type blocks = (a.rows() + config.block_rows - 1) / config.block_rows;
    std::vector<BlockPart<V, I>> parts(blocks);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_type b = 0; b < blocks; ++b)
        parts[b] = build_block(a, b * config.block_rows, config.block_rows, config.buffer_entries);

    // Concatenate the parts (offsets first, then parallel copies).
    std::vector<size_type> map_at(blocks + 1, 0), slot_at(blocks + 1, 0);
    t.buffdispl.assign(blocks + 1, 0);
    for (size_type b = 0; b < blocks; ++b) {
        t.buffdispl[b + 1] = t.buffdispl[b] + static_cast<size_type>(parts[b].stage_map_size.size());
        map_at[b + 1] = map_at[b] + static_cast<size_type>(parts[b].map.size());
        slot_at[b + 1] = slot_at[b] + static_cast<size_type>(parts[b].values.size()) / w;
    }
    t.mapdispl.assign(t.buffdispl.back() + 1, 0);
    t.warpdispl.assign(t.buffdispl.back() * t.warps_per_block() + 1, 0);
    for (size_type b = 0; b < blocks; ++b) {
        size_type stage = t.buffdispl[b];
        for (size_type s = 0; s < size_type(parts[b].stage_map_size.size()); ++s, ++stage)
            t.mapdispl[stage + 1] = t.mapdispl[stage] + parts[b].stage_map_size[s];
        size_type warp = t.buffdispl[b] * t.warps_per_block();
        for (auto width : parts[b].warp_width) {
            t.warpdispl[warp + 1] = t.warpdispl[warp] + width;
            ++warp;
        }
    }
    t.map.resize(map_at.back());
    t.index.resize(slot_at.back() * w);
    t.values.resize(slot_at.back() * w);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_type b = 0; b < blocks; ++b) {
        std::copy(parts[b].map.begin(), parts[b].map.end(), t.map.begin() + map_at[b]);
        std::copy(parts[b].index.begin(), parts[b].index.end(), t.index.begin() + slot_at[b] * w);
        std::copy(parts[b].values.begin(), parts[b].values.end(), t.values.begin() + slot_at[b] * w);
        BlockPart<V, I>().map.swap(parts[b].map);
    }
    return t;
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
                        const V v = t.values[m * w + lane];
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
    template Csr<V, I> csr_from_tiled_ell(const TiledEll<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
