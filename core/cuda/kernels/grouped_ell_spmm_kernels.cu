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
#include <type_traits>

#include "core/cuda/device_spmm.hpp"
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

using detail::Chunk16;
using detail::EntryLayout;
using detail::TiledArgs;

// Slots whose index and G values a lane loads before it sums them: two, or one for double (two
// slots' chunks of doubles spilled 8-32 bytes in the variants at 128 registers, ptxas -v) and for
// single rows of 32 floats (two slots' eight chunks each spilled 112 bytes).
template <int G, typename V>
constexpr int group_slots_in_flight = sizeof(V) == 4 && G > 1 ? 2 : 1;

// acc[g][kk] += values(m, g)·B[map[index(m)], k0 + kk] over one slot: the entry's chunks from
// shared memory (EntryLayout), G multiply-adds for each value.
template <int R, int G, typename V>
__device__ __forceinline__ void sum_slot(V (&acc)[G][R], const V (&v)[G], SharedPtr<V> buf, int entry) {
    using Layout = EntryLayout<R, V>;
    const SharedPtr<Chunk16<V>> first = pointer_cast<Chunk16<V>>(buf) + Layout::first_chunk(entry);
#pragma unroll
    for (int c = 0; c < Layout::chunks; ++c) {
        const Chunk16<V> x = first[c * Layout::octet];  // chunk c + 1 is an octet's chunks on
#pragma unroll
        for (int j = 0; j < Layout::per; ++j)
#pragma unroll
            for (int g = 0; g < G; ++g) acc[g][c * Layout::per + j] += v[g] * x.v[j];
    }
}

// Up to 16 bytes of a slot's G values in one load (four floats, eight halves).
template <int G, typename S>
struct GroupPiece {
    static constexpr int bytes = G * sizeof(S) < 16 ? G * static_cast<int>(sizeof(S)) : 16;
    static constexpr int per = bytes / static_cast<int>(sizeof(S));  // values per load
    struct alignas(bytes) Load {
        S v[per];
    };
};

// A stored value as V: fp16 bits widened.
template <typename V, typename S>
__device__ __forceinline__ V widen(S x) {
    if constexpr (std::is_same_v<S, std::uint16_t>)
        return V(__half2float(__ushort_as_half(x)));
    else
        return x;
}

// The G values of one slot and lane (stored together) in GroupPiece loads.
template <int G, typename S, typename V>
__device__ __forceinline__ void load_group(V (&v)[G], const S* __restrict__ stored) {
    using Piece = GroupPiece<G, S>;
    const auto* pieces = reinterpret_cast<const typename Piece::Load*>(stored);
#pragma unroll
    for (int q = 0; q < G / Piece::per; ++q) {
        const typename Piece::Load x = pieces[q];
#pragma unroll
        for (int j = 0; j < Piece::per; ++j) v[q * Piece::per + j] = widen<V>(x.v[j]);
    }
}

// sum_slot over `count` slots of this lane: `index` and `stored` (A's values as stored, half or
// V) at its first slot, group_slots_in_flight slots' index and values loaded before they are
// summed. The cursors step a pass at a time and the loop ends on one of them: the slots' 64-bit
// numbers and the addresses made from them took 14 of a pass's 176 instructions at G = 4, R = 16
// (SASS for sm_90), the cursors take 6.
template <int R, int G, typename V, typename S>
__device__ __forceinline__ void sum_slots_from(V (&acc)[G][R], const std::uint16_t* __restrict__ index,
                                               const S* __restrict__ stored, SharedPtr<V> buf, int count) {
    constexpr int in_flight = group_slots_in_flight<G, V>;
    constexpr int step = in_flight * warp_size;  // the cursors' step, in slots times lanes
    const std::uint16_t* const whole_end = index + count / in_flight * step;
#pragma unroll 1
    for (; index != whole_end; index += step, stored += step * G) {
        int idx[in_flight];
        V v[in_flight][G];
#pragma unroll
        for (int u = 0; u < in_flight; ++u) {
            idx[u] = index[u * warp_size];
            load_group<G>(v[u], stored + u * warp_size * G);
        }
#pragma unroll
        for (int u = 0; u < in_flight; ++u) sum_slot<R, G>(acc, v[u], buf, idx[u]);
    }
    if (count % in_flight != 0) {  // in_flight is at most two: one slot left at most
        V v[G];
        load_group<G>(v, stored);
        sum_slot<R, G>(acc, v, buf, index[0]);
    }
}

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
