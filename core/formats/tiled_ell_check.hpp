// Whether a tiled ELL matrix read from somewhere else (a cache file) is one the kernels can
// run without reading out of bounds: its offsets, columns and local indices.
#pragma once

#include <string>

#include "core/formats/tiled_ell.hpp"

namespace tessel {

/// "" when t's arrays agree with each other and with its rows, cols and config: buffdispl has a
/// stage or more per block of rows, mapdispl at most buffer_entries per stage and ends at
/// map's size, map holds columns in 0..cols-1, warpdispl is nondecreasing over stages x warps
/// and ends at the slots, every stored index lies within its stage, and values (or half
/// values) fill the slots. Else the first disagreement in words, naming the array, the entry
/// and its value ("map: column 9000 at 5 outside 0..8999"). Reads every index (OpenMP).
template <typename V, typename I>
std::string tiled_ell_structure_error(const TiledEll<V, I>& t);

}  // namespace tessel
