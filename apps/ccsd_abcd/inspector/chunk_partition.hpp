// Segmentation into chunks of the paper's section 3.2.3: the A tiles a block needs, in chunks
// that fit in a quarter of a device's memory (the other quarter prefetches the next chunk).
#pragma once

#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

/// One A tile as the chunking sees it: its position in A's shape and its size in bytes.
struct ATileRef {
    size_type position = 0;
    size_type bytes = 0;
};

/// A chunk: the positions of its A tiles (in the order they were added) and their bytes.
struct Chunk {
    std::vector<size_type> tiles;
    size_type bytes = 0;
};

/// `rows[r]` lists the A tiles of row r that the block needs, in k order. Chunks are built
/// greedily: one tile per row in cyclic order (row 0, 1, ..., r-1, 0, ...; rows that ran out
/// are skipped) is added while it fits in `capacity`; the first tile that does not fit closes
/// the chunk and opens the next one. So a chunk advances all rows together by about the same
/// number of tiles (the r x k chunks of the dense algorithm, with irregular tiles). Throws
/// OutOfMemoryBudget when one tile is larger than `capacity`.
std::vector<Chunk> partition_into_chunks(const std::vector<std::vector<ATileRef>>& rows, size_type capacity);

}  // namespace tessel::abcd
