// The row-group kernels' inner loop (device code, internal): a lane's slots of one stage, each
// an entry of the staged input (EntryLayout) and its rows' G values, summed into G x R
// accumulators. Core's row-group SpMM kernel and spdnn's row-group layer kernel both run it.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/cuda/kernels/stage_entries.hpp"
#include "core/cuda/kernels/tile_store.hpp"
#include "core/cuda/runtime/device_code.hpp"

namespace tessel::cuda::detail {

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
    constexpr int lanes = 32;
    constexpr int step = in_flight * lanes;  // the cursors' step, in slots times lanes
    const std::uint16_t* const whole_end = index + count / in_flight * step;
#pragma unroll 1
    for (; index != whole_end; index += step, stored += step * G) {
        int idx[in_flight];
        V v[in_flight][G];
#pragma unroll
        for (int u = 0; u < in_flight; ++u) {
            idx[u] = index[u * lanes];
            load_group<G>(v[u], stored + u * lanes * G);
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

}  // namespace tessel::cuda::detail
