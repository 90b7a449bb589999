// The grid of an element-wise kernel with a grid-stride loop (internal): enough blocks for one
// element per thread, at most 65536 (the loop covers the rest), at least one.
#pragma once

namespace tessel::cuda::detail {

inline unsigned grid_stride_blocks(long long elements, int threads_per_block) {
    const long long blocks = (elements + threads_per_block - 1) / threads_per_block;
    return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

}  // namespace tessel::cuda::detail
