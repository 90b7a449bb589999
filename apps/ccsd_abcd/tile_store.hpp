// Tile storage on a host: one aligned, column-major buffer per tile position (empty: not here).
#pragma once

#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/types.hpp"

namespace tessel::abcd {

/// The entries of one tile, column-major, 64-byte aligned.
template <typename ValueType>
using TileBuffer = std::vector<ValueType, AlignedAllocator<ValueType>>;

/// Tiles of one matrix by their position in its shape; tiles that this process does not hold
/// are empty buffers.
template <typename ValueType>
using TileStore = std::vector<TileBuffer<ValueType>>;

}  // namespace tessel::abcd
