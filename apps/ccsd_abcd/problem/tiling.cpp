// Tilings: validation, lookup and description.
#include "apps/ccsd_abcd/problem/tiling.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"

namespace tessel::abcd {

Tiling Tiling::from_sizes(std::vector<size_type> sizes, const std::string& what) {
    Tiling t;
    t.offsets_.reserve(sizes.size() + 1);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] <= 0)
            TESSEL_INVALID_INPUT(what, 0, "tile " + std::to_string(i) + " has size " +
                                              std::to_string(sizes[i]) +
                                              " (sizes must be positive)");
        // A damaged problem file may hold sizes whose sum overflows (found by fuzzing).
        if (sizes[i] > std::numeric_limits<size_type>::max() - t.offsets_.back())
            TESSEL_INVALID_INPUT(what, 0, "tile sizes add up beyond " +
                                              std::to_string(std::numeric_limits<size_type>::max()) + " at tile " +
                                              std::to_string(i));
        t.offsets_.push_back(t.offsets_.back() + sizes[i]);
    }
    t.sizes_ = std::move(sizes);
    return t;
}

Tiling Tiling::covering(std::vector<size_type> sizes, size_type extent, const std::string& what) {
    Tiling t = from_sizes(std::move(sizes), what);
    if (t.extent() != extent)
        TESSEL_INVALID_INPUT(what, 0, "tiles cover " + std::to_string(t.extent()) + " of " +
                                          std::to_string(extent) + " indices");
    return t;
}

Tiling Tiling::from_boundaries(const std::vector<size_type>& boundaries, size_type extent,
                               const std::string& what) {
    if (boundaries.size() < 2 || boundaries.front() != 0)
        TESSEL_INVALID_INPUT(what, 0, "tile boundaries must start at 0");
    if (boundaries.back() != extent)
        TESSEL_INVALID_INPUT(what, 0, "tile boundaries end at " + std::to_string(boundaries.back()) +
                                          ", not at the extent " + std::to_string(extent));
    std::vector<size_type> sizes;
    for (std::size_t i = 1; i < boundaries.size(); ++i) {
        if (boundaries[i] <= boundaries[i - 1])
            TESSEL_INVALID_INPUT(what, 0, "tile boundaries do not increase at " + std::to_string(i));
        sizes.push_back(boundaries[i] - boundaries[i - 1]);
    }
    return from_sizes(std::move(sizes), what);
}

size_type Tiling::min_size() const {
    return sizes_.empty() ? 0 : *std::min_element(sizes_.begin(), sizes_.end());
}

size_type Tiling::max_size() const {
    return sizes_.empty() ? 0 : *std::max_element(sizes_.begin(), sizes_.end());
}

size_type Tiling::tile_of(size_type x) const {
    auto it = std::upper_bound(offsets_.begin(), offsets_.end(), x);
    return static_cast<size_type>(it - offsets_.begin()) - 1;
}

std::string Tiling::describe() const {
    return std::to_string(extent()) + " in " + std::to_string(count()) + " tile" +
           (count() == 1 ? "" : "s") + " of " + std::to_string(min_size()) + ".." +
           std::to_string(max_size());
}

Tiling fused_tiling(const Tiling& outer, const Tiling& inner) {
    std::vector<size_type> sizes;
    sizes.reserve(static_cast<std::size_t>(outer.count() * inner.count()));
    for (size_type s = 0; s < outer.count(); ++s)
        for (size_type t = 0; t < inner.count(); ++t) sizes.push_back(outer.size(s) * inner.size(t));
    return Tiling::from_sizes(std::move(sizes), "fused tiling");
}

}  // namespace tessel::abcd
