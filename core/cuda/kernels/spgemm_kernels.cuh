// Device pieces of the CUDA SpGEMM (Deveci et al. 2018, §3.1): open-addressing hash maps for
// one warp (first level in shared memory, second level a chunk of global memory) and the
// spin-lock memory pool that hands the chunks out (MANY2MANY mode).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/cuda/runtime/device_code.hpp"

namespace tessel::cuda::spgemm_device {

inline constexpr int warp_size = 32;
/// Warps per block of the SpGEMM kernels (one row of C per warp at a time).
inline constexpr int warps_per_block = 8;
/// Shared memory of one warp's first hash level, in bytes.
inline constexpr int l1_bytes_per_warp = 4096;

/// Fibonacci hashing into a power-of-two window of 2^bits slots.
template <typename I>
__device__ __forceinline__ std::int64_t hash_slot(I key, int bits) {
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >>
                                     (64 - bits));
}

/// atomicCAS on a 32- or 64-bit key, in shared (SharedPtr) or global memory.
template <typename Pointer, typename I>
__device__ __forceinline__ I cas_key(Pointer address, I expected, I desired) {
    if constexpr (sizeof(I) == 4) {
        return static_cast<I>(atomicCAS(pointer_cast<int>(address), static_cast<int>(expected),
                                        static_cast<int>(desired)));
    } else {
        return static_cast<I>(atomicCAS(pointer_cast<unsigned long long>(address),
                                        static_cast<unsigned long long>(expected),
                                        static_cast<unsigned long long>(desired)));
    }
}

/// insert() and find() return this when a key has no place (see there).
inline constexpr std::int64_t no_room = INT64_MIN;

/// A warp's view of one row's hash map. Keys are columns (>= 0), -1 marks an empty slot.
/// Level 1 admits keys while at most half full and then closes for the rest of the row, so a
/// key lives in exactly one level (keys inserted concurrently by the lanes of a warp are
/// distinct: they come from one row of B). Level 2 is sized for the whole row and never fills.
template <typename I>
struct WarpHash {
    SharedPtr<I> l1;           // shared memory
    int l1_bits;               // log2 of the level-1 window
    int l1_limit;              // entries level 1 admits
    SharedPtr<int> l1_used;    // shared counter
    SharedPtr<int> l1_closed;  // shared flag
    I* l2;          // global memory chunk, or nullptr
    int l2_bits;
    int chunk;      // the pool chunk holding l2, or -1

    /// The slot of `key` in level 1 (>= 0), or -1 - slot in level 2; `fresh` tells whether
    /// this call inserted it. no_room when the row has more keys than it was sized for (its
    /// operands do not have the pattern of the plan): probing stops after a full window.
    __device__ __forceinline__ std::int64_t insert(I key, bool& fresh) const {
        const std::int64_t window = std::int64_t(1) << l1_bits, mask = window - 1;
        std::int64_t h = hash_slot(key, l1_bits);
        fresh = false;
        for (std::int64_t probes = 0; probes < window; ++probes) {
            const I current = load_volatile(l1 + h);
            if (current == key) return h;
            if (current == I(-1)) {
                // Only a row with a second level limits the first: the reservation keeps it
                // at most half full, and a failed one closes it for the rest of the row.
                if (l2 != nullptr) {
                    if (load_volatile(l1_closed)) break;
                    if (atomicAdd(l1_used, 1) >= l1_limit) {
                        atomicSub(l1_used, 1);
                        store_volatile(l1_closed, 1);
                        break;
                    }
                }
                const I previous = cas_key(l1 + h, I(-1), key);
                if (previous == I(-1)) {
                    fresh = true;
                    return h;
                }
                if (l2 != nullptr) atomicSub(l1_used, 1);
                if (previous == key) return h;
            }
            h = (h + 1) & mask;
        }
        if (l2 == nullptr) return no_room;
        const std::int64_t slot = insert_l2(key, fresh);
        return slot == no_room ? no_room : -1 - slot;
    }

    /// The slot of `key` as insert() numbers them, or no_room when it is in neither level.
    __device__ __forceinline__ std::int64_t find(I key) const {
        const std::int64_t window = std::int64_t(1) << l1_bits, mask = window - 1;
        std::int64_t h = hash_slot(key, l1_bits);
        for (std::int64_t probes = 0; probes < window; ++probes) {
            const I current = load_volatile(l1 + h);
            if (current == key) return h;
            if (current == I(-1)) break;
            h = (h + 1) & mask;
        }
        if (l2 == nullptr) return no_room;
        const std::int64_t window2 = std::int64_t(1) << l2_bits, mask2 = window2 - 1;
        h = hash_slot(key, l2_bits);
        for (std::int64_t probes = 0; probes < window2; ++probes) {
            const I current = load_volatile(l2 + h);
            if (current == key) return -1 - h;
            if (current == I(-1)) return no_room;
            h = (h + 1) & mask2;
        }
        return no_room;
    }

    __device__ __forceinline__ std::int64_t insert_l2(I key, bool& fresh) const {
        const std::int64_t window = std::int64_t(1) << l2_bits, mask = window - 1;
        std::int64_t h = hash_slot(key, l2_bits);
        fresh = false;
        for (std::int64_t probes = 0; probes < window; ++probes) {
            const I current = load_volatile(l2 + h);
            if (current == key) return h;
            if (current == I(-1)) {
                const I previous = cas_key(l2 + h, I(-1), key);
                if (previous == I(-1)) {
                    fresh = true;
                    return h;
                }
                if (previous == key) return h;
            }
            h = (h + 1) & mask;
        }
        return no_room;
    }
};

/// Memory pool, MANY2MANY: lane 0 of a warp scans from its hint for a free chunk, spinning
/// with back-off while every chunk is taken.
__device__ __forceinline__ int acquire_chunk(int* locks, int chunks, int hint) {
    int c = hint % chunks;
    for (;;) {
        if (atomicCAS(locks + c, 0, 1) == 0) {
            __threadfence();
            return c;
        }
        c = c + 1 == chunks ? 0 : c + 1;
        __nanosleep(64);
    }
}

__device__ __forceinline__ void release_chunk(int* locks, int chunk) {
    __threadfence();
    atomicExch(locks + chunk, 0);
}

/// Smallest b with 2^b >= max(n, 1).
__device__ __forceinline__ int ceil_log2(std::int64_t n) {
    return n <= 1 ? 0 : 64 - __clzll(static_cast<unsigned long long>(n - 1));
}

}  // namespace tessel::cuda::spgemm_device
