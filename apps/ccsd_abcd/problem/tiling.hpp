// Tilings of an index range: consecutive tiles of irregular sizes that cover [0, extent) exactly.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

/// A partition of [0, extent) into count() consecutive tiles: tile t covers
/// [offset(t), offset(t) + size(t)), offset(0) = 0, offset(t+1) = offset(t) + size(t),
/// and Σ_t size(t) = extent.
class Tiling {
public:
    Tiling() = default;

    /// From tile sizes. Throws InvalidInput "what: tile 3 has size 0 (sizes must be positive)".
    static Tiling from_sizes(std::vector<size_type> sizes, const std::string& what = "tiling");
    /// From tile sizes that must cover `extent` exactly. Throws InvalidInput "what: tiles cover
    /// 1990 of 2000 indices" and as from_sizes().
    static Tiling covering(std::vector<size_type> sizes, size_type extent, const std::string& what);
    /// From tile boundaries 0 = b_0 < b_1 < ... < b_n = extent. Throws InvalidInput when the
    /// first boundary is not 0, the last is not `extent`, or they do not increase.
    static Tiling from_boundaries(const std::vector<size_type>& boundaries, size_type extent,
                                  const std::string& what);

    size_type count() const { return static_cast<size_type>(sizes_.size()); }
    size_type extent() const { return offsets_.back(); }
    size_type size(size_type t) const { return sizes_[static_cast<std::size_t>(t)]; }
    size_type offset(size_type t) const { return offsets_[static_cast<std::size_t>(t)]; }
    const std::vector<size_type>& sizes() const { return sizes_; }
    size_type min_size() const;
    size_type max_size() const;
    /// The tile holding index x (0 <= x < extent), by binary search.
    size_type tile_of(size_type x) const;

    /// "2000 in 3 tiles of 512..1024".
    std::string describe() const;

    bool operator==(const Tiling& other) const { return sizes_ == other.sizes_; }

private:
    std::vector<size_type> sizes_;
    std::vector<size_type> offsets_{0};
};

/// The tiling of a fused index (x, y) with x of `outer` and y of `inner` (x major): tile
/// (s, t) is number s·inner.count() + t and has size outer.size(s)·inner.size(t). For the
/// pair indices ij, cd, ab of the CCSD tensors.
Tiling fused_tiling(const Tiling& outer, const Tiling& inner);

}  // namespace tessel::abcd
