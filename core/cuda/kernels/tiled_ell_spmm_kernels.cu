// The thesis's tiled ELL SpMM kernel (section 2.3, Listing 1) on row-major B and C: per
// stage, the block's mapped rows of B are staged in shared memory one register tile of
// columns at a time; each thread owns one row and accumulates its tile in registers.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/kernels/slot_sums.hpp"
#include "core/cuda/kernels/spmm_launch.hpp"
#include "core/cuda/kernels/stage_rows.hpp"
#include "core/cuda/kernels/tiled_ell_args.hpp"
#include "core/cuda/kernels/tile_store.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/instantiate.hpp"

namespace tessel::cuda {

namespace {

constexpr int warp_size = 32;
constexpr int max_block_threads = 1024;

// Launch bounds per register factor: a thread with 128 bytes of accumulators or more (32
// floats, 16 doubles) gets up to 128 registers (512 threads); the others 64 (1024 threads).
template <int R, typename V>
constexpr int tiled_max_threads() {
    return R * static_cast<int>(sizeof(V)) >= 128 ? 512 : 1024;
}

int tiled_max_threads(int factor, std::size_t value_size) {
    return factor * static_cast<int>(value_size) >= 128 ? 512 : 1024;
}

// Compiled for 1024 threads the kernel gets 64 registers, four blocks of 256 per SM, whatever
// its stage allows. Float tiles of up to 16 columns in blocks of at most many_threads rows whose
// stages leave room for more take a variant sized for many_blocks of them (40 registers; ptxas
// sm_90: no spills, where double tiles of 8 spill): xct's 16 columns with 512-entry stages, six
// blocks per SM.
constexpr int many_threads = 256;
constexpr int many_blocks = 6;
constexpr bool has_many_variant(int factor, std::size_t value_size) { return value_size == 4 && factor <= 16; }
template <int R, typename V>
constexpr bool has_many_variant() {
    return has_many_variant(R, sizeof(V));
}
template <int R, int MinBlocks, typename V>
constexpr int launch_threads() {
    return MinBlocks > 1 ? many_threads : tiled_max_threads<R, V>();
}

// True when blocks of block_rows threads with `shared_bytes` each take the many-blocks variant:
// shared memory holds more of them than the 64 registers of the usual variant allow.
bool runs_many(int factor, std::size_t value_size, size_type block_rows, size_type shared_bytes,
               const detail::DeviceLimits& limits) {
    if (!has_many_variant(factor, value_size) || block_rows > many_threads) return false;
    constexpr size_type reserved_per_block = 1024;  // the runtime's own shared memory per block
    const size_type by_shared = limits.shared_per_multiprocessor / (shared_bytes + reserved_per_block);
    return by_shared > detail::blocks_by_registers(tiled_max_threads(factor, value_size), block_rows);
}

using detail::TiledArgs;

using detail::stage_rows;
using detail::wide_staging;
using detail::slot_value;

// Slot rows whose loads a warp issues before it waits on the first (an H200: 1.005-1.01x, within
// the noise: the waits are the stage's gather of B, not these loads; the figures since ran on it).
constexpr int slots_in_flight = 4;

// One block per row block (blockDim.x == block_rows) and column tile: blockIdx.x = block *
// tiles + tile, k0 = k_first + tile*R, so that a row block's tiles are launched side by side
// and read its slots of A from L2 after the first brought them in (launched tile after tile,
// every tile streamed all of A from memory again: 8 times in xct's 1024² case of 128 columns
// at R = 16). Columns at or beyond k_end (only in a tail launch) are
// neither loaded nor written. Shared memory: buf[kk*stage_stride + n] holds B[map[n], k0+kk].
template <int R, bool Wide, int MinBlocks, typename V, typename I>
__global__ void __launch_bounds__(launch_threads<R, MinBlocks, V>(), MinBlocks)
    tiled_ell_kernel(TiledArgs<V, I> a, const V* __restrict__ b, size_type ldb,
                     V* __restrict__ c, size_type ldc, size_type k_first, size_type k_end, size_type tiles,
                     Epilogue<V> ep) {
    TESSEL_DYNAMIC_SHARED(V, buf);
    const size_type block = static_cast<size_type>(blockIdx.x) / tiles;
    const size_type k0 = k_first + static_cast<size_type>(blockIdx.x) % tiles * R;
    const int active = k_end - k0 < R ? static_cast<int>(k_end - k0) : R;
    const int lane = threadIdx.x % warp_size;
    const int warp = threadIdx.x / warp_size;
    const int stride = a.stage_stride;
    const V* bk = b + k0;

    V acc[R];
#pragma unroll
    for (int kk = 0; kk < R; ++kk) acc[kk] = V(0);

    const size_type stage_end = a.buffdispl[block + 1];
    for (size_type s = a.buffdispl[block]; s < stage_end; ++s) {
        const size_type m0 = a.mapdispl[s];
        const int staged = static_cast<int>(a.mapdispl[s + 1] - m0);
        const I* __restrict__ map = a.map + m0;
        stage_rows<R, Wide>(buf, map, staged, stride, bk, ldb, active);
        __syncthreads();
        // The warp's ELL slots of this stage: lane r of slot m is entry m*32 + r (coalesced).
        const size_type* wd = a.warpdispl + s * a.warps_per_block + warp;
        detail::sum_slots<R, slots_in_flight>(acc, [&](size_type e) { return slot_value(a, e); }, a.index, buf, stride,
                                              lane, wd[0], wd[1]);
        __syncthreads();  // the next stage overwrites the buffer
    }

    // Value by value, and the staged columns an odd distance apart: 16-byte stores of the tile
    // and a conflict-free distance, as spdnn's fused layer has them (tile_store.hpp), made xct's
    // products 10 % slower on an H200 (ncu: the 512² case's forward product 1.20 -> 1.32 ms;
    // 2.65 -> 2.84 ms per iteration, A B in one call).
    const size_type row = block * a.block_rows + threadIdx.x;
    if (row < a.rows) {
        V* crow = c + row * ldc + k0;
#pragma unroll
        for (int kk = 0; kk < R; ++kk)
            if (kk < active) crow[kk] = ep.apply(acc[kk], crow[kk]);
    }
}

// Launches the factor-R kernel over `tiles` column tiles starting at column k_first.
template <int R, bool Wide, int MinBlocks, typename V, typename I>
void launch_tiled_as(const TiledArgs<V, I>& args, size_type blocks, DenseView<const V> b,
                     DenseView<V> c, size_type k_first, size_type tiles, const Epilogue<V>& ep,
                     size_type shared_bytes, const detail::DeviceLimits& limits,
                     cudaStream_t stream) {
    detail::allow_shared_bytes(tiled_ell_kernel<R, Wide, MinBlocks, V, I>, shared_bytes, limits);
    detail::launch_column_tiles(blocks, tiles, [&](size_type t0, size_type n) {
        TESSEL_LAUNCH(dim3(static_cast<unsigned>(blocks * n)), static_cast<unsigned>(args.block_rows),
                      static_cast<std::size_t>(shared_bytes), stream,
                      tiled_ell_kernel<R, Wide, MinBlocks, V, I>)(args, b.data, b.ld, c.data, c.ld, k_first + t0 * R,
                                                                  b.cols, n, ep);
        TESSEL_CUDA_CHECK_LAUNCH();
    });
}

template <int R, typename V, typename I>
void launch_tiled(const TiledArgs<V, I>& args, size_type blocks, DenseView<const V> b,
                  DenseView<V> c, size_type k_first, size_type tiles, const Epilogue<V>& ep,
                  size_type shared_bytes, const detail::DeviceLimits& limits,
                  cudaStream_t stream) {
    const bool wide = wide_staging<R>(b, k_first, tiles);
    if constexpr (has_many_variant<R, V>()) {
        if (runs_many(R, sizeof(V), args.block_rows, shared_bytes, limits)) {
            if (wide)
                return launch_tiled_as<R, true, many_blocks>(args, blocks, b, c, k_first, tiles, ep, shared_bytes,
                                                             limits, stream);
            return launch_tiled_as<R, false, many_blocks>(args, blocks, b, c, k_first, tiles, ep, shared_bytes, limits,
                                                          stream);
        }
    }
    if (wide)
        launch_tiled_as<R, true, 1>(args, blocks, b, c, k_first, tiles, ep, shared_bytes, limits, stream);
    else
        launch_tiled_as<R, false, 1>(args, blocks, b, c, k_first, tiles, ep, shared_bytes, limits, stream);
}

template <typename V, typename I>
void launch_factor(int factor, const TiledArgs<V, I>& args, size_type blocks,
                   DenseView<const V> b, DenseView<V> c, size_type k_first, size_type tiles,
                   const Epilogue<V>& ep, size_type shared_bytes,
                   const detail::DeviceLimits& limits, cudaStream_t stream) {
    switch (factor) {
    case 32: launch_tiled<32>(args, blocks, b, c, k_first, tiles, ep, shared_bytes, limits, stream); break;
    case 16: launch_tiled<16>(args, blocks, b, c, k_first, tiles, ep, shared_bytes, limits, stream); break;
    case 8: launch_tiled<8>(args, blocks, b, c, k_first, tiles, ep, shared_bytes, limits, stream); break;
    default: launch_tiled<4>(args, blocks, b, c, k_first, tiles, ep, shared_bytes, limits, stream); break;
    }
}

size_type shared_bytes_for(int stride, int factor, std::size_t value_size) {
    return static_cast<size_type>(stride) * factor * static_cast<size_type>(value_size);
}

// Blocks that should stay resident on a multiprocessor when the kernel picks the register
// tile: a block waits on its staging loads at every stage, and only other blocks hide that
// (on an H200, 16 columns of 4096-entry stages: one block of 8 columns per SM, 6.8 ms; three
// blocks of 4 columns, 2x faster, though A is read twice as often).
constexpr size_type resident_blocks_wanted = 3;

// The register factor the tiled kernel starts from for k right-hand sides (as on the cpu).
int automatic_factor(size_type k) {
    if (k >= 32) return 32;
    if (k >= 16) return 16;
    if (k >= 8) return 8;
    return 4;
}

template <typename V, typename I>
TiledEllLaunch plan_with_limits(const DeviceTiledEll<V, I>& a, size_type k, int requested,
                                const detail::DeviceLimits& limits) {
    if (requested != 0 && requested != 4 && requested != 8 && requested != 16 && requested != 32)
        TESSEL_INVALID_INPUT("register factor", 0,
                             std::to_string(requested) + " is not one of 4, 8, 16, 32");
    if (a.block_rows() <= 0 || a.block_rows() % warp_size != 0 ||
        a.block_rows() > max_block_threads)
        TESSEL_INVALID_INPUT("tiled ELL config", 0,
                             "block_rows " + std::to_string(a.block_rows()) +
                                 " must be a multiple of 32 of at most 1024 for the cuda kernel "
                                 "(one thread per row)");
    const int stride = detail::stage_stride(a.max_stage_entries());
    int factor = requested != 0 ? requested : automatic_factor(k);
    // Fit the staging buffer and the launch bounds by halving the register tile; a tile of
    // our choosing also leaves room for resident_blocks_wanted blocks per multiprocessor.
    const size_type budget =
        requested != 0 ? limits.shared_per_block_optin : detail::shared_budget(limits, resident_blocks_wanted);
    while (factor > 4 && (shared_bytes_for(stride, factor, sizeof(V)) > budget ||
                          a.block_rows() > tiled_max_threads(factor, sizeof(V))))
        factor /= 2;
    const size_type bytes = shared_bytes_for(stride, factor, sizeof(V));
    if (bytes > limits.shared_per_block_optin)
        TESSEL_THROW(CudaError,
                     "cuda::spmm_tiled_ell: the staging buffer needs " + std::to_string(bytes) +
                         " bytes of shared memory per block (" +
                         std::to_string(a.max_stage_entries()) + " staged entries x register factor " +
                         std::to_string(factor) + " x " + std::to_string(sizeof(V)) +
                         " bytes) but " + detail::current_device_name() + " allows " +
                         std::to_string(limits.shared_per_block_optin) +
                         " bytes; build the tiled ELL with buffer_entries <= " +
                         std::to_string(limits.shared_per_block_optin / (4 * sizeof(V)) - 1));
    TiledEllLaunch launch;
    launch.register_factor = factor;
    launch.shared_bytes = bytes;
    launch.block_threads = a.block_rows();
    launch.min_blocks = runs_many(factor, sizeof(V), a.block_rows(), bytes, limits) ? many_blocks : 1;
    size_type left = k % factor;
    for (int width = factor / 2; width >= 4; width /= 2)
        if (left >= width) {
            ++launch.tail_launches;
            left -= width;
        }
    if (left > 0) ++launch.tail_launches;
    return launch;
}

}  // namespace

namespace device {

template <typename V, typename I>
TiledEllLaunch plan_tiled_ell(const DeviceTiledEll<V, I>& a, size_type k, int register_factor) {
    return plan_with_limits(a, k, register_factor, detail::current_device_limits());
}

template <typename V, typename I>
TiledEllLaunch spmm_tiled_ell(const DeviceTiledEll<V, I>& a, InputView<V> b,
                              DenseView<V> c, const Epilogue<V>& ep, int register_factor,
                              cudaStream_t stream) {
    detail::check_spmm_shapes("cuda::spmm_tiled_ell", a.rows(), a.cols(), b, c);
    const detail::DeviceLimits limits = detail::current_device_limits();
    const size_type k = b.cols;
    const TiledEllLaunch launch = plan_with_limits(a, k, register_factor, limits);
    if (a.rows() == 0 || k == 0) return launch;

    const TiledArgs<V, I> args = detail::tiled_args(a);
    const int factor = launch.register_factor;
    const size_type blocks = a.num_blocks();
    // Main launch over the full tiles, then halving widths for what is left (as on the cpu);
    // the last 1-3 columns run in a factor-4 tile that masks the columns beyond k.
    const size_type full_tiles = k / factor;
    if (full_tiles > 0)
        launch_factor(factor, args, blocks, b, c, 0, full_tiles, ep, launch.shared_bytes, limits,
                      stream);
    size_type k0 = full_tiles * factor;
    for (int width = factor / 2; width >= 4; width /= 2)
        if (k - k0 >= width) {
            launch_factor(width, args, blocks, b, c, k0, 1, ep,
                          shared_bytes_for(args.stage_stride, width, sizeof(V)), limits, stream);
            k0 += width;
        }
    if (k0 < k)
        launch_factor(4, args, blocks, b, c, k0, 1, ep,
                      shared_bytes_for(args.stage_stride, 4, sizeof(V)), limits, stream);
    return launch;
}

}  // namespace device

#define TESSEL_INSTANTIATE(V, I)                                                               \
    template TiledEllLaunch device::plan_tiled_ell(const DeviceTiledEll<V, I>&, size_type,     \
                                                   int);                                       \
    template TiledEllLaunch device::spmm_tiled_ell(const DeviceTiledEll<V, I>&,                \
                                                   DenseView<const V>, DenseView<V>,           \
                                                   const Epilogue<V>&, int, cudaStream_t);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda
