// The reference inference with the layers read one at a time (from the binary cache on
// disk), for networks that do not fit in memory: the second method that checks the fast
// inference and the generator's categories on the largest networks.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "apps/spdnn/network/network.hpp"

namespace tessel::spdnn {

/// The answer of reference_categories (1-based ids, ascending, of the images whose row of
/// Y_L is not all zero) for every image of `images`, with layer k read by source(k) (once)
/// and all images carried through it before layer k + 1 is read. Each layer is Zᵀ = Wᵀ·Yᵀ by
/// reference::spmm on dense rows, as reference_categories does, in batches of
/// `batch_images` images spread over the OpenMP threads. When bias <= 0 an all-zero row
/// stays all zero, so such rows are dropped (the answer is unchanged; memory and time then
/// follow the live rows). Throws DimensionMismatch when the images do not have N features.
std::vector<std::int64_t> reference_categories_streamed(const NetworkShape& shape,
                                                        const std::function<Layer(size_type)>& source,
                                                        const Images& images, size_type batch_images = 16);

}  // namespace tessel::spdnn
