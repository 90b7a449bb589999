// B's tiles made on the device: the cuda executor's twin of GeneratedTiles::fill (the same
// counter-based hash, problem/element_hash.hpp, so the same bits), one launch for every B tile
// of a block. Only in builds with the CUDA backend.
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "b_tile_kernels.hpp needs a build with the CUDA backend (TESSEL_HAVE_CUDA)"
#endif

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/types.hpp"

namespace tessel::abcd {

/// One tile to make: global rows [row0, row0 + rows) and columns [col0, col0 + cols),
/// column-major at `offset` values into the output.
struct TileJob {
    std::int64_t row0 = 0, col0 = 0, offset = 0;
    std::int32_t rows = 0, cols = 0;
};

/// out[job.offset + r + c·rows] := element (row0 + r, col0 + c) of the operand whose hash base is
/// `base` (element_hash::operand_base), for every job of `jobs` (device memory, `count` of
/// them; the largest has `largest` values), enqueued on `stream`. Throws CudaError.
template <typename ValueType>
void generate_tiles(const TileJob* jobs, size_type count, size_type largest, std::uint64_t base, ValueType* out,
                    cudaStream_t stream);

}  // namespace tessel::abcd
