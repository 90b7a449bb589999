// The inner loop of the tiled ELL kernels (device code, internal): a thread's ELL slots of one
// stage summed against the staged input in shared memory. Core's SpMM kernel and spdnn's fused
// layer kernel both run it.
#pragma once

#include <cstdint>

#include "core/cuda/runtime/device_code.hpp"
#include "core/types.hpp"

namespace tessel::cuda::detail {

/// acc[kk] += value_of(e)·buf[kk·stride + index[e]] for the slots m in [first, end) of this
/// lane (entry e = m·32 + lane), in slot order. `Batch` slots' values and indices are loaded
/// before their sums: one dependent load per slot, as first written, left the late spdnn
/// layers' blocks waiting on each of their 32 slots (the xct products on an H200: within noise).
template <int R, int Batch, typename V, typename ValueOf>
__device__ __forceinline__ void sum_slots(V (&acc)[R], ValueOf value_of, const std::uint16_t* __restrict__ index,
                                          SharedPtr<V> buf, int stride, int lane, size_type first, size_type end) {
    constexpr int warp_size = 32;
    size_type m = first;
    for (; m + Batch <= end; m += Batch) {
        V v[Batch];
        int idx[Batch];
#pragma unroll
        for (int u = 0; u < Batch; ++u) {
            v[u] = value_of((m + u) * warp_size + lane);
            idx[u] = index[(m + u) * warp_size + lane];
        }
#pragma unroll
        for (int u = 0; u < Batch; ++u)
#pragma unroll
            for (int kk = 0; kk < R; ++kk) acc[kk] += v[u] * buf[kk * stride + idx[u]];
    }
    for (; m < end; ++m) {
        const V v = value_of(m * warp_size + lane);
        const int idx = index[m * warp_size + lane];
#pragma unroll
        for (int kk = 0; kk < R; ++kk) acc[kk] += v * buf[kk * stride + idx];
    }
}

}  // namespace tessel::cuda::detail
