// The tiled ELL product on row groups (core/formats/grouped_ell.hpp): each thread owns G
// consecutive rows, so one read of a staged value from shared memory feeds G multiply-adds. The
// tiled kernel reads one staged value per multiply-add, and shared memory's 128 bytes per clock
// per SM bound it (xct's 1024² case ran at 7.67 TFLOP/s on an H200, 60 % of that bound). With G
// multiply-adds a read, instructions bound this kernel instead, so B's rows are staged in octets
// of entries (stage_entries.hpp) and read 16 bytes at a time at fixed distances from an entry's
// first chunk, and a slot's G values, stored together, come in loads of up to 16 bytes.
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/kernels/group_slots.hpp"
#include "core/cuda/kernels/spmm_launch.hpp"
#include "core/cuda/kernels/stage_entries.hpp"
#include "core/cuda/kernels/tiled_ell_args.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/instantiate.hpp"

namespace tessel::cuda {

namespace {

constexpr int warp_size = 32;
// G·R accumulators per thread: 32 (R = 32 / G, the default) or, for float, 64 (R = 64 / G: fewer
// passes over A's slots per column of B; 64 doubles would spill); up to 512 threads a block, 128
// registers each. The launch bounds name one resident block: with the maximum alone, ptxas on
// sm_90 held several float variants to 64 registers and spilled 28-32 bytes (80-128 and no
// spills with it, ptxas -v).
constexpr int grouped_max_threads = static_cast<int>(grouped_ell_max_threads);

using detail::sum_slots_from;
using detail::TiledArgs;

// The same over this lane's slots [first, end) of A: a uniform branch on how A's values are
// stored (every thread takes one side).
template <int R, int G, typename V, typename I>
__device__ __forceinline__ void sum_group_slots(V (&acc)[G][R], const TiledArgs<V, I>& a, SharedPtr<V> buf,
                                                int lane, size_type first, size_type end) {
    const size_type slot_lane = first * warp_size + lane;
    const int count = static_cast<int>(end - first);
    if (a.half_values)
        sum_slots_from<R, G>(acc, a.index + slot_lane, a.half_values + slot_lane * G, buf, count);
    else
        sum_slots_from<R, G>(acc, a.index + slot_lane, a.values + slot_lane * G, buf, count);
}

// One block per row block (blockDim.x == block_rows / G) and column tile, as the tiled kernel:
// blockIdx.x = block * tiles + tile, k0 = k_first + tile*R; columns at or past k_end are
// neither loaded nor written. Thread t writes rows block*block_rows + t*G + g.
template <int G, int R, bool Wide, typename V, typename I>
__global__ void __launch_bounds__(grouped_max_threads, 1)
    grouped_ell_kernel(TiledArgs<V, I> a, const V* __restrict__ b, size_type ldb, V* __restrict__ c,
                       size_type ldc, size_type k_first, size_type k_end, size_type tiles, Epilogue<V> ep) {
    TESSEL_DYNAMIC_SHARED(V, buf);
    const size_type block = static_cast<size_type>(blockIdx.x) / tiles;
    const size_type k0 = k_first + static_cast<size_type>(blockIdx.x) % tiles * R;
    const int active = k_end - k0 < R ? static_cast<int>(k_end - k0) : R;
    const int lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size;

    V acc[G][R];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int kk = 0; kk < R; ++kk) acc[g][kk] = V(0);

    const size_type stage_end = a.buffdispl[block + 1];
    for (size_type s = a.buffdispl[block]; s < stage_end; ++s) {
        const size_type m0 = a.mapdispl[s];
        detail::stage_entries<R, Wide>(buf, a.map + m0, static_cast<int>(a.mapdispl[s + 1] - m0), b + k0, ldb, active);
        __syncthreads();
        const size_type* wd = a.warpdispl + s * a.warps_per_block + warp;
        sum_group_slots<R, G>(acc, a, buf, lane, wd[0], wd[1]);
        __syncthreads();  // the next stage overwrites the buffer
    }

#pragma unroll
    for (int g = 0; g < G; ++g) {
        const size_type row = block * a.block_rows + static_cast<size_type>(threadIdx.x) * G + g;
        if (row >= a.rows) break;
        V* crow = c + row * ldc + k0;
#pragma unroll
        for (int kk = 0; kk < R; ++kk)
            if (kk < active) crow[kk] = ep.apply(acc[g][kk], crow[kk]);
    }
}

// Launches `tiles` column tiles from k_first (Wide only for full, aligned tiles).
template <int G, int R, bool Wide, typename V, typename I>
void launch_grouped_as(const TiledArgs<V, I>& args, size_type blocks, size_type threads, DenseView<const V> b,
                       DenseView<V> c, size_type k_first, size_type tiles, const Epilogue<V>& ep,
                       size_type shared_bytes, const detail::DeviceLimits& limits, cudaStream_t stream) {
    detail::allow_shared_bytes(grouped_ell_kernel<G, R, Wide, V, I>, shared_bytes, limits);
    detail::launch_column_tiles(blocks, tiles, [&](size_type t0, size_type n) {
        TESSEL_LAUNCH(dim3(static_cast<unsigned>(blocks * n)), static_cast<unsigned>(threads),
                      static_cast<std::size_t>(shared_bytes), stream,
                      grouped_ell_kernel<G, R, Wide, V, I>)(args, b.data, b.ld, c.data, c.ld, k_first + t0 * R,
                                                            b.cols, n, ep);
        TESSEL_CUDA_CHECK_LAUNCH();
    });
}

// The full tiles (16-byte staging where aligned), then the masked tail tile.
template <int G, int R, typename V, typename I>
void launch_grouped(const TiledArgs<V, I>& args, size_type blocks, size_type threads, DenseView<const V> b,
                    DenseView<V> c, const Epilogue<V>& ep, size_type shared_bytes,
                    const detail::DeviceLimits& limits, cudaStream_t stream) {
    const size_type full = b.cols / R;
    if (full > 0) {
        if (detail::wide_staging<R>(b, 0, full))
            launch_grouped_as<G, R, true>(args, blocks, threads, b, c, 0, full, ep, shared_bytes, limits, stream);
        else
            launch_grouped_as<G, R, false>(args, blocks, threads, b, c, 0, full, ep, shared_bytes, limits, stream);
    }
    if (full * R < b.cols)
        launch_grouped_as<G, R, false>(args, blocks, threads, b, c, full * R, 1, ep, shared_bytes, limits, stream);
}

// The register factor for groups of `group`: `requested` when it is 32 / group or (float, groups of
// two or more) 64 / group, 32 / group for 0 (R = 32 for single rows: the tiled kernel's widest).
// Throws InvalidInput otherwise.
int grouped_factor(size_type group, size_type value_size, int requested) {
    const int narrow = static_cast<int>(32 / group);
    const int wide = group > 1 && value_size == 4 ? static_cast<int>(64 / group) : narrow;
    if (requested == 0) return narrow;
    if (!row_group_factor_fits(group, value_size, requested))
        TESSEL_INVALID_INPUT("register factor", 0,
                             std::to_string(requested) + " for groups of " + std::to_string(group) + " rows: " +
                                 std::to_string(narrow) + (wide != narrow ? " or " + std::to_string(wide) : "") +
                                 " (" + (wide != narrow ? "32 or 64" : "32") + " accumulators a thread)");
    return requested;
}

template <typename V, typename I>
void launch_grouped_factor(size_type group, int factor, const TiledArgs<V, I>& args, size_type blocks,
                           size_type threads, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                           size_type shared_bytes, const detail::DeviceLimits& limits, cudaStream_t stream) {
    const auto run = [&](auto g, auto r) {
        launch_grouped<decltype(g)::value, decltype(r)::value>(args, blocks, threads, b, c, ep, shared_bytes, limits,
                                                               stream);
    };
    using std::integral_constant;
    // Only float tiles widen (grouped_factor): no double kernel of 64 accumulators is compiled.
    const bool wide = factor * group == 64;
    constexpr bool widens = sizeof(V) == 4;
    switch (group) {
    case 1: return run(integral_constant<int, 1>{}, integral_constant<int, 32>{});
    case 2:
        if constexpr (widens)
            if (wide) return run(integral_constant<int, 2>{}, integral_constant<int, 32>{});
        return run(integral_constant<int, 2>{}, integral_constant<int, 16>{});
    case 4:
        if constexpr (widens)
            if (wide) return run(integral_constant<int, 4>{}, integral_constant<int, 16>{});
        return run(integral_constant<int, 4>{}, integral_constant<int, 8>{});
    default:
        if constexpr (widens)
            if (wide) return run(integral_constant<int, 8>{}, integral_constant<int, 8>{});
        return run(integral_constant<int, 8>{}, integral_constant<int, 4>{});
    }
}

}  // namespace

namespace device {

template <typename V, typename I>
TiledEllLaunch spmm_grouped_ell(const DeviceGroupedEll<V, I>& a, InputView<V> b, DenseView<V> c,
                                const Epilogue<V>& ep, int register_factor, cudaStream_t stream) {
    detail::check_spmm_shapes("cuda::spmm_grouped_ell", a.rows(), a.cols(), b, c);
    const size_type threads = a.threads_per_block();
    if (threads <= 0 || threads % warp_size != 0 || threads > grouped_max_threads)
        TESSEL_INVALID_INPUT("row groups", 0,
                             "block_rows " + std::to_string(a.block_rows()) + " / group " + std::to_string(a.group()) +
                                 " must be a multiple of 32 threads of at most " +
                                 std::to_string(grouped_max_threads) + " for the cuda kernel");
    const detail::DeviceLimits limits = detail::current_device_limits();
    TiledEllLaunch launch;
    launch.register_factor = grouped_factor(a.group(), static_cast<size_type>(sizeof(V)), register_factor);
    launch.shared_bytes = detail::octet_entries(a.max_stage_entries()) * launch.register_factor *
                          static_cast<size_type>(sizeof(V));
    launch.block_threads = threads;
    launch.tail_launches = b.cols % launch.register_factor != 0 && b.cols > launch.register_factor ? 1 : 0;
    if (launch.shared_bytes > limits.shared_per_block_optin)
        TESSEL_THROW(CudaError, "cuda::spmm_grouped_ell: the staging buffer needs " +
                                    std::to_string(launch.shared_bytes) + " bytes of shared memory per block but " +
                                    detail::current_device_name() + " allows " +
                                    std::to_string(limits.shared_per_block_optin) +
                                    "; build the tiled ELL with fewer buffer_entries");
    if (a.rows() == 0 || b.cols == 0) return launch;
    const TiledArgs<V, I> args = detail::grouped_args(a);
    const size_type blocks = a.num_blocks();
    launch_grouped_factor(a.group(), launch.register_factor, args, blocks, threads, b, c, ep, launch.shared_bytes,
                          limits, stream);
    return launch;
}

}  // namespace device

#define TESSEL_INSTANTIATE(V, I)                                                                                \
    template TiledEllLaunch device::spmm_grouped_ell(const DeviceGroupedEll<V, I>&, DenseView<const V>,         \
                                                     DenseView<V>, const Epilogue<V>&, int, cudaStream_t);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda
