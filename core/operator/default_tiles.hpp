// The tiled ELL cut for a backend when the caller chooses none.
#pragma once

#include "core/backend.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel {

/// On cuda, stages of 768 entries: 16 fp32 columns take 48 KiB, so four blocks share an SM (an
/// H200, xct's 16-slice stored-Aᵀ iteration: 3.01 ms; 1024 entries, three blocks: 3.25; 512:
/// 3.80; 2048: 4.10; 4096: 15). Elsewhere TiledEllConfig's own (4096: the CPU's caches).
inline TiledEllConfig default_tiles(Backend backend) {
    TiledEllConfig tiles;
    if (backend == Backend::cuda) tiles.buffer_entries = 768;
    return tiles;
}

}  // namespace tessel
