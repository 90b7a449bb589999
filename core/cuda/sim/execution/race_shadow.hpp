// The race check's record of shared memory (internal to core/cuda/sim): for every 4-byte word,
// the last write and the last two readers since the last barrier, in the spirit of
// compute-sanitizer's racecheck.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda/sim/execution/shared_memory.hpp"

namespace tessel::sim {

/// Who touched a word and when: the block epoch changes at every __syncthreads (and with every
/// block), the warp epoch at every __syncwarp of that warp.
struct AccessStamp {
    std::int32_t thread = -1;
    std::int32_t warp = 0;
    std::uint32_t warp_epoch = 0;
    std::uint64_t block_epoch = 0;
    bool atomic = false;
};

class RaceShadow {
public:
    /// Room for `bytes` bytes of shared memory.
    void reserve(std::size_t bytes);
    /// Records an access to word `word` and returns "" or a description of the race with an
    /// earlier access ("thread 17 wrote it"), by thread index.
    std::string record(std::size_t word, const AccessStamp& now, bool write);

private:
    struct Word {
        AccessStamp write, read1, read2;
    };
    std::vector<Word> words_;
};

}  // namespace tessel::sim
