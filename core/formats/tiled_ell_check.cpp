#include "core/formats/tiled_ell_check.hpp"

#include "core/instantiate.hpp"

namespace tessel {

namespace {

// "" when d starts at 0, has `count` entries and each step lies in [low, high] (d[i] >= 0 by
// then, so no difference overflows whatever the file held).
std::string offsets_error(const char* name, const std::vector<size_type>& d, size_type count, size_type low,
                          size_type high) {
    if (static_cast<size_type>(d.size()) != count) return std::string(name) + " has the wrong length";
    if (d.empty() || d.front() != 0) return std::string(name) + " does not start at 0";
    for (std::size_t i = 0; i + 1 < d.size(); ++i)
        if (d[i + 1] < d[i] || d[i + 1] - d[i] < low || d[i + 1] - d[i] > high)
            return std::string(name) + " step " + std::to_string(i) + " outside " + std::to_string(low) + ".." +
                   std::to_string(high);
    return "";
}

// The first slot whose local index lies beyond its stage's staged entries, as
// "index: local index X at E outside the N entries of stage S", or "".
template <typename V, typename I>
std::string bad_index_error(const TiledEll<V, I>& t) {
    const size_type warps = t.warps_per_block(), w = TiledEll<V, I>::warp_size;
    long long first_slot = -1, its_stage = -1;
#pragma omp parallel for schedule(dynamic, 64)
    for (size_type s = 0; s < t.num_stages(); ++s) {
        const size_type entries = t.mapdispl[s + 1] - t.mapdispl[s];
        for (size_type e = t.warpdispl[s * warps] * w; e < t.warpdispl[(s + 1) * warps] * w; ++e)
            if (t.index[e] >= entries && (t.index[e] != 0 || entries != 0)) {
#pragma omp critical(tessel_tiled_ell_check)
                if (first_slot < 0 || e < first_slot) {
                    first_slot = e;
                    its_stage = s;
                }
                break;
            }
    }
    if (first_slot < 0) return "";
    const size_type entries = t.mapdispl[its_stage + 1] - t.mapdispl[its_stage];
    return "index: local index " + std::to_string(t.index[first_slot]) + " at " + std::to_string(first_slot) +
           " outside the " + std::to_string(entries) + " entries of stage " + std::to_string(its_stage);
}

}  // namespace

template <typename V, typename I>
std::string tiled_ell_structure_error(const TiledEll<V, I>& t) {
    const size_type br = t.config.block_rows, be = t.config.buffer_entries, w = TiledEll<V, I>::warp_size;
    if (t.rows < 0 || t.cols < 0 || t.nnz < 0) return "negative sizes";
    if (br <= 0 || br % w != 0 || be <= 0 || be > 65536) return "a block or buffer size out of range";
    // Sizes from a file can be anything: divisions, not products, so that nothing overflows.
    const size_type blocks = t.rows / br + (t.rows % br != 0);
    if (static_cast<size_type>(t.buffdispl.size()) - 1 != blocks) return "buffdispl has the wrong length";
    // A block has at least one stage and at most one per buffer of its distinct columns.
    std::string e = offsets_error("buffdispl", t.buffdispl, blocks + 1, 1, t.cols / be + 1 + (t.cols % be != 0));
    if (e.empty()) e = offsets_error("mapdispl", t.mapdispl, t.buffdispl.back() + 1, 0, be);
    if (e.empty() && t.mapdispl.back() != static_cast<size_type>(t.map.size())) e = "mapdispl does not end at map";
    const size_type warps = t.warps_per_block(), pairs = static_cast<size_type>(t.warpdispl.size()) - 1;
    if (e.empty() && (pairs < 0 || pairs % warps != 0 || pairs / warps != t.num_stages()))
        e = "warpdispl has the wrong length";
    if (e.empty()) e = offsets_error("warpdispl", t.warpdispl, pairs + 1, 0, be);
    if (!e.empty()) return e;
    for (std::size_t i = 0; i < t.map.size(); ++i)
        if (t.map[i] < 0 || t.map[i] >= t.cols)
            return "map: column " + std::to_string(t.map[i]) + " at " + std::to_string(i) + " outside 0.." +
                   std::to_string(t.cols - 1);
    if (t.stored() % w != 0 || t.warpdispl.back() != t.stored() / w) return "the slots do not fill index";
    if (static_cast<size_type>(t.stores_half() ? t.half_values.size() : t.values.size()) != t.stored())
        return "the values do not fill the slots";
    return bad_index_error(t);
}

#define TESSEL_INSTANTIATE(V, I) template std::string tiled_ell_structure_error(const TiledEll<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
