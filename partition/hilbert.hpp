// Hilbert curves in 2-D and 3-D (Skilling's transpose algorithm) and the two-level ordering of
// MemXCT: power-of-two tiles along a Hilbert curve, the points of a tile along their own.
#pragma once

#include <array>
#include <cstdint>

#include "core/types.hpp"
#include "partition/permutation.hpp"

namespace tessel::partition {

/// Position of (x, y) on the Hilbert curve through the 2^bits x 2^bits square, 0 .. 4^bits - 1.
/// Consecutive positions are grid neighbours. bits <= 31; coordinates must be < 2^bits.
std::uint64_t hilbert_index_2d(int bits, std::uint32_t x, std::uint32_t y);
/// The point at position d (inverse of hilbert_index_2d).
std::array<std::uint32_t, 2> hilbert_point_2d(int bits, std::uint64_t d);

/// Position of (x, y, z) on the Hilbert curve through the 2^bits cube, 0 .. 8^bits - 1. bits <= 21.
std::uint64_t hilbert_index_3d(int bits, std::uint32_t x, std::uint32_t y, std::uint32_t z);
std::array<std::uint32_t, 3> hilbert_point_3d(int bits, std::uint64_t d);

/// Smallest b with 2^b >= n (0 for n <= 1).
int bits_for(size_type n);

/// The points of an nx x ny grid (point index y*nx + x) in two-level Hilbert order:
/// the grid is cut into tile x tile tiles (tile a power of two; the domain padded to whole
/// tiles), tiles are visited along a Hilbert curve of the tile grid and the points of each tile
/// along the tile's own curve; padding points are skipped. tile = 1 orders tiles only, and a
/// tile covering the whole (square, power-of-two) grid gives the plain Hilbert curve.
/// Returns order[position] = point index. Throws InvalidInput (tile not a power of two, sizes).
Permutation hilbert_order_2d(size_type nx, size_type ny, size_type tile);

/// The same for an nx x ny x nz grid (point index (z*ny + y)*nx + x) with tile^3 tiles.
Permutation hilbert_order_3d(size_type nx, size_type ny, size_type nz, size_type tile);

}  // namespace tessel::partition
