#include "core/formats/tiled_ell_check.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

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

// The largest of index[first, last): a max reduction the compiler vectorises. (A test and a
// branch per slot made this check cost as much as a CGLS iteration when xct loads its cached
// operator.)
inline std::uint16_t largest_index(const std::uint16_t* index, std::size_t first, std::size_t last) {
    std::uint16_t largest = 0;
#pragma omp simd reduction(max : largest)
    for (std::size_t e = first; e < last; ++e) largest = index[e] > largest ? index[e] : largest;
    return largest;
}

// The first slot whose local index lies beyond its stage's staged entries, as
// "index: local index X at E outside the N entries of stage S", or "". A slot is bad when its
// index is at least max(entries, 1): padding is index 0, also in a stage with no entries. The
// stages' slots ascend, so the first bad slot lies in the first bad stage.
template <typename V, typename I>
std::string bad_index_error(const TiledEll<V, I>& t) {
    const size_type warps = t.warps_per_block(), w = TiledEll<V, I>::warp_size, stages = t.num_stages();
    const auto first_slot = [&](size_type s) { return static_cast<std::size_t>(t.warpdispl[s * warps] * w); };
    const auto limit = [&](size_type s) { return std::max<size_type>(1, t.mapdispl[s + 1] - t.mapdispl[s]); };
    size_type bad_stage = stages;
#pragma omp parallel for schedule(dynamic, 64) reduction(min : bad_stage)
    for (size_type s = 0; s < stages; ++s)
        if (largest_index(t.index.data(), first_slot(s), first_slot(s + 1)) >= limit(s)) bad_stage = std::min(bad_stage, s);
    if (bad_stage == stages) return "";
    std::size_t e = first_slot(bad_stage);
    while (t.index[e] < limit(bad_stage)) ++e;
    return "index: local index " + std::to_string(t.index[e]) + " at " + std::to_string(e) + " outside the " +
           std::to_string(t.mapdispl[bad_stage + 1] - t.mapdispl[bad_stage]) + " entries of stage " +
           std::to_string(bad_stage);
}

// The first column of `map` outside 0..cols-1, as "map: column C at i outside 0..cols-1", or
// "": a min-max reduction first (vectorised), the search only when one is out.
template <typename I>
std::string bad_map_error(const std::vector<I>& map, size_type cols) {
    I low = 0, high = 0;
    const I* m = map.data();
    const std::size_t n = map.size();
#pragma omp simd reduction(min : low) reduction(max : high)
    for (std::size_t i = 0; i < n; ++i) {
        low = m[i] < low ? m[i] : low;
        high = m[i] > high ? m[i] : high;
    }
    if (n == 0 || (low >= 0 && high < cols)) return "";
    std::size_t i = 0;
    while (m[i] >= 0 && m[i] < cols) ++i;
    return "map: column " + std::to_string(m[i]) + " at " + std::to_string(i) + " outside 0.." +
           std::to_string(cols - 1);
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
    if (e = bad_map_error(t.map, t.cols); !e.empty()) return e;
    if (t.stored() % w != 0 || t.warpdispl.back() != t.stored() / w) return "the slots do not fill index";
    if (static_cast<size_type>(t.stores_half() ? t.half_values.size() : t.values.size()) != t.stored())
        return "the values do not fill the slots";
    return bad_index_error(t);
}

#define TESSEL_INSTANTIATE(V, I) template std::string tiled_ell_structure_error(const TiledEll<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
