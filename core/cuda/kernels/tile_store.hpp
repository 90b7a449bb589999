// A thread's register tile of one row of a row-major result, written 16 bytes at a time, and a
// distance between staged columns free of bank conflicts (device code, internal): spdnn's fused
// layer kernel uses both, core's tiled ELL kernel the 16-byte chunk for its staging loads.
#pragma once

#include <cstdint>

#include "core/cuda/runtime/device_code.hpp"
#include "core/types.hpp"

namespace tessel::cuda::detail {

/// 16 bytes of values, loaded or stored as one access where the address allows (LDG/STG.128).
template <typename V>
struct alignas(16) Chunk16 {
    V v[16 / sizeof(V)];
};

/// True when a tile of R values is whole 16-byte chunks and rows `ld` apart from `first` on
/// begin 16-byte aligned: tiles whose first column is a multiple of R after `first` may then go
/// out as chunks. Uniform over a launch.
template <int R, typename V>
__device__ __forceinline__ bool rows_in_chunks(const V* first, size_type ld) {
    return (R * sizeof(V)) % 16 == 0 && reinterpret_cast<std::uintptr_t>(first) % 16 == 0 &&
           (static_cast<std::uint64_t>(ld) * sizeof(V)) % 16 == 0;
}

/// out[kk] := y[kk] for kk < active. A whole tile of chunked rows goes as R·sizeof(V)/16
/// stores of 16 bytes: stored value by value, a warp's 32 rows touched 32 sectors per store and
/// every sector several times (ncu on an H200, spdnn's first layer at 1024 neurons: 2.0 GB of
/// sector writes to L2 for 245 MB of output, L2 77 % busy).
/// Float tiles only: double tiles of 8 columns at 64 registers spilled with them (ptxas sm_90).
template <int R, typename V>
__device__ __forceinline__ void store_tile(V* out, const V (&y)[R], int active, bool chunked) {
    if constexpr (sizeof(V) == 4 && (R * sizeof(V)) % 16 == 0) {
        if (chunked && active == R) {
            constexpr int per = 16 / static_cast<int>(sizeof(V));
            Chunk16<V>* chunks = reinterpret_cast<Chunk16<V>*>(out);
#pragma unroll
            for (int j = 0; j < R / per; ++j) {
                Chunk16<V> c;
#pragma unroll
                for (int u = 0; u < per; ++u) c.v[u] = y[j * per + u];
                chunks[j] = c;
            }
            return;
        }
    }
#pragma unroll
    for (int kk = 0; kk < R; ++kk)
        if (kk < active) out[kk] = y[kk];
}

/// The distance between staged columns in shared memory for a register tile of R columns: at
/// least `entries`, and ≡ 32/R (mod 32), so that the 32 lanes of a warp staging 32/R rows x R
/// columns (or 16-byte pieces of them) store to 32 different banks. An odd distance put lane
/// (kk, n) on bank kk + n: four-way conflicts at R = 8 (ncu, spdnn's layers: a quarter of the
/// shared wavefronts excessive).
inline int conflict_free_stride(size_type entries, int R) {
    const size_type want = R >= 32 ? 1 : 32 / R;
    const size_type base = entries - entries % 32 + want;
    return static_cast<int>(base >= entries ? base : base + 32);
}

}  // namespace tessel::cuda::detail
