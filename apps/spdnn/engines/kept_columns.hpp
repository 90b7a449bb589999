// Compaction of the engines that run a layer as one SpMM on Zᵀ (one column per image): which
// columns survive the layer and the image ids that follow them. One copy for the core and cuda
// engines; each moves its own activations (host loop or device gather).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessel::spdnn {

/// Positions j with live[j] set, ascending (Position: the index type the mover takes).
template <typename Position>
std::vector<Position> kept_columns(const std::vector<char>& live) {
    std::vector<Position> keep;
    for (std::size_t j = 0; j < live.size(); ++j)
        if (live[j]) keep.push_back(static_cast<Position>(j));
    return keep;
}

/// ids := ids[keep[0]], ids[keep[1]], ...: the images of the kept columns.
template <typename Position>
void keep_ids(std::vector<std::int64_t>& ids, const std::vector<Position>& keep) {
    std::vector<std::int64_t> kept(keep.size());
    for (std::size_t j = 0; j < keep.size(); ++j) kept[j] = ids[static_cast<std::size_t>(keep[j])];
    ids = std::move(kept);
}

/// The ids of the columns with live[j] set: the images whose activations are not all zero.
inline std::vector<std::int64_t> live_ids(std::vector<std::int64_t> ids, const std::vector<char>& live) {
    keep_ids(ids, kept_columns<std::size_t>(live));
    return ids;
}

}  // namespace tessel::spdnn
