// Aᵀ's slots from A's on the device (tiled_ell_transpose.hpp): one thread per row of A walks
// its slots as the product kernels do and sends each entry to its slot of Aᵀ; a second pass
// sorts each (stage, row) of Aᵀ by index, since the atomic counters hand out places in the
// order the threads arrive and the host transpose keeps A's row order.
#include <string>

#include "core/cuda/kernels/tiled_ell_args.hpp"
#include "core/cuda/kernels/tiled_ell_transpose.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/instantiate.hpp"

namespace tessel::cuda::detail {

namespace {

constexpr int warp_size = 32;
constexpr int order_threads = 256;

// Entry e of A is zero (padding or a stored zero): the host transpose leaves these out too.
template <typename V>
__device__ bool zero_at(const V* values, const std::uint16_t* half_values, size_type e) {
    return half_values ? (half_values[e] & 0x7fff) == 0 : values[e] == V(0);
}

// The place of `row` in the ascending list [first, last), where it is.
template <typename I>
__device__ size_type rank_in(const I* list, size_type first, size_type last, I row) {
    size_type lo = first, hi = last;
    while (lo < hi) {
        const size_type mid = lo + (hi - lo) / 2;
        if (list[mid] < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - first;
}

// One block per row block of A, one thread per row.
template <typename V, typename I>
__global__ void fill_transposed_kernel(TiledArgs<V, I> a, TransposedSlots<V, I> t) {
    const size_type block = blockIdx.x;
    const int lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size;
    const size_type row = block * a.block_rows + threadIdx.x;
    if (row >= a.rows) return;
    for (size_type s = a.buffdispl[block]; s < a.buffdispl[block + 1]; ++s) {
        const size_type* wd = a.warpdispl + s * a.warps_per_block + warp;
        const I* stage_map = a.map + a.mapdispl[s];
        for (size_type m = wd[0]; m < wd[1]; ++m) {
            const size_type e = m * warp_size + lane;
            if (zero_at(a.values, a.half_values, e)) continue;
            const I col = stage_map[a.index[e]];
            const size_type p = col / t.block_rows, r = col - p * t.block_rows;
            const size_type first = t.buffdispl[p];
            const size_type rank = rank_in(t.map, t.mapdispl[first], t.mapdispl[t.buffdispl[p + 1]], static_cast<I>(row));
            const size_type stage = first + rank / t.buffer_entries;
            const size_type at = atomicAdd(t.counts + stage * t.block_rows + r, 1);
            const size_type slot = (t.warpdispl[stage * t.warps_per_block + r / warp_size] + at) * warp_size + r % warp_size;
            t.index[slot] = static_cast<std::uint16_t>(rank - (stage - first) * t.buffer_entries);
            if (t.half_values)
                t.half_values[slot] = a.half_values[e];
            else
                t.values[slot] = a.values[e];
        }
    }
}

// One thread per (stage, row) of Aᵀ: its entries (a few dozen) sorted by index in place.
template <typename V, typename I>
__global__ void order_transposed_rows_kernel(TransposedSlots<V, I> t) {
    const size_type key = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (key >= t.stages * t.block_rows) return;
    const size_type stage = key / t.block_rows, r = key % t.block_rows;
    const size_type base = t.warpdispl[stage * t.warps_per_block + r / warp_size], lane = r % warp_size;
    auto slot = [&](size_type i) { return (base + i) * warp_size + lane; };
    const size_type n = t.counts[key];
    for (size_type i = 1; i < n; ++i) {
        const std::uint16_t index = t.index[slot(i)];
        const V value = t.values ? t.values[slot(i)] : V(0);
        const std::uint16_t half = t.half_values ? t.half_values[slot(i)] : 0;
        size_type j = i;
        for (; j > 0 && t.index[slot(j - 1)] > index; --j) {
            t.index[slot(j)] = t.index[slot(j - 1)];
            if (t.values) t.values[slot(j)] = t.values[slot(j - 1)];
            if (t.half_values) t.half_values[slot(j)] = t.half_values[slot(j - 1)];
        }
        t.index[slot(j)] = index;
        if (t.values) t.values[slot(j)] = value;
        if (t.half_values) t.half_values[slot(j)] = half;
    }
}

}  // namespace

template <typename V, typename I>
void fill_transposed_slots(const DeviceTiledEll<V, I>& a, const TransposedSlots<V, I>& t, cudaStream_t stream) {
    if (a.num_blocks() > 0) {
        TESSEL_LAUNCH(dim3(static_cast<unsigned>(a.num_blocks())), dim3(static_cast<unsigned>(a.block_rows())), 0, stream,
                      fill_transposed_kernel<V, I>)(tiled_args(a), t);
        TESSEL_CUDA_CHECK(cudaGetLastError());
    }
    const size_type keys = t.stages * t.block_rows;
    if (keys == 0) return;
    TESSEL_LAUNCH(dim3(static_cast<unsigned>((keys + order_threads - 1) / order_threads)), dim3(order_threads), 0, stream,
                  order_transposed_rows_kernel<V, I>)(t);
    TESSEL_CUDA_CHECK(cudaGetLastError());
}

#define TESSEL_INSTANTIATE(V, I) \
    template void fill_transposed_slots(const DeviceTiledEll<V, I>&, const TransposedSlots<V, I>&, cudaStream_t);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda::detail
