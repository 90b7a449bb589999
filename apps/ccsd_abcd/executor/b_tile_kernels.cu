// B's tiles on the device: every thread makes values of one tile with the host's hash.
#include "apps/ccsd_abcd/executor/b_tile_kernels.hpp"

#include <algorithm>

#include "apps/ccsd_abcd/problem/element_hash.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"

namespace tessel::abcd {

namespace {

constexpr int threads = 256;
constexpr int values_per_thread = 8;  // about: a tile's values are spread over grid.y blocks

// Block (x, y) makes part y of tile x: values y·threads + t, stepping by gridDim.y·threads,
// column-major (consecutive threads write consecutive rows: coalesced).
template <typename T>
__global__ void generate_tiles_kernel(const TileJob* __restrict__ jobs, std::uint64_t base, T* __restrict__ out) {
    const TileJob job = jobs[blockIdx.x];
    const std::int64_t values = std::int64_t(job.rows) * job.cols;
    T* tile = out + job.offset;
    for (std::int64_t e = std::int64_t(blockIdx.y) * blockDim.x + threadIdx.x; e < values;
         e += std::int64_t(gridDim.y) * blockDim.x) {
        const std::int64_t c = e / job.rows, r = e - c * job.rows;
        tile[e] = static_cast<T>(element_hash::element(base, std::uint64_t(job.row0 + r), std::uint64_t(job.col0 + c)));
    }
}

}  // namespace

template <typename T>
void generate_tiles(const TileJob* jobs, size_type count, size_type largest, std::uint64_t base, T* out,
                    cudaStream_t stream) {
    if (count == 0 || largest == 0) return;
    // grid.x counts tiles (up to 2^31 - 1), grid.y the parts of the largest one (at most 65535).
    const size_type parts = std::min<size_type>(65535, (largest + threads * values_per_thread - 1) / (threads * values_per_thread));
    TESSEL_LAUNCH(dim3(static_cast<unsigned>(count), static_cast<unsigned>(parts)), dim3(threads), 0, stream,
                  generate_tiles_kernel<T>)(jobs, base, out);
    TESSEL_CUDA_CHECK(cudaGetLastError());
}

template void generate_tiles<double>(const TileJob*, size_type, size_type, std::uint64_t, double*, cudaStream_t);
template void generate_tiles<float>(const TileJob*, size_type, size_type, std::uint64_t, float*, cudaStream_t);

}  // namespace tessel::abcd
