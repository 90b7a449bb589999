// The layer kernels' compaction (device code, internal): one block ranks a layer's live flags
// into the next layer's columns, and the layer kernel's last block to finish runs it. The tiled
// and the row-group layer kernels share it.
#pragma once

#include <cstdint>

#include "apps/spdnn/engines/cuda_layer_kernels.hpp"
#include "core/cuda/runtime/device_code.hpp"

namespace tessel::spdnn::device::detail {

constexpr int compaction_warp = 32;
constexpr unsigned compaction_mask = 0xffffffffu;

// One block ranks the flags live[0 .. k) in few registers (the layer kernel's variants have 32;
// a scan of a bit mask per thread, or ballots kept in shared memory, spilled there), in chunks
// of at most 32 flags per thread: each warp takes an equal run of the chunk (a late layer's
// thousand flags are five ballots per warp of a block of 256), counts its flags into `totals`
// (blockDim.x ints of shared memory), the counts rank the warps, then each warp reads its flags
// again, as ballots, and writes every kept column at its rank. The flags are read volatile: in
// the layer kernel's last block other blocks wrote them. Every thread stores its warp's count
// (the same value): a barrier right after a branch may be duplicated into both sides by the
// host compiler under the simulator, which then sees threads in different barriers. CountLoads
// and RankLoads: the flag loads a thread has in flight in the two passes (in the layer kernel 4
// and 2: more spill in its variants of 32 registers).
template <int CountLoads, int RankLoads>
__device__ __forceinline__ void compact_flags(std::int32_t* live, int k, const Compaction& next,
                                              cuda::SharedPtr<int> totals) {
    const int lane = threadIdx.x % compaction_warp, warp = threadIdx.x / compaction_warp;
    const int warps = blockDim.x / compaction_warp;
    const unsigned below = (1u << lane) - 1u;  // the lanes before this one
    int offset = 0;                            // kept so far; the same in every thread
    for (int j0 = 0; j0 < k;) {
        const int most = static_cast<int>(blockDim.x) * compaction_warp;
        const int chunk = k - j0 < most ? k - j0 : most;
        const int ballots = (chunk + warps * compaction_warp - 1) / (warps * compaction_warp);  // per warp
        const int first = j0 + warp * ballots * compaction_warp, end = j0 + chunk;
        int mine = 0;
#pragma unroll CountLoads
        for (int i = 0; i < ballots; ++i) {
            const int j = first + i * compaction_warp + lane;
            mine += j < end && cuda::load_volatile(live + j) != 0;
        }
        totals[threadIdx.x] = __reduce_add_sync(compaction_mask, mine);
        __syncthreads();
        int before = 0, total = 0;
        for (int v = 0; v < warps; ++v) {
            const int c = totals[v * compaction_warp];
            before += v < warp ? c : 0;
            total += c;
        }
        __syncthreads();  // the next chunk stores its counts
        int p = offset + before;
#pragma unroll RankLoads
        for (int i = 0; i < ballots; ++i) {
            const int j = first + i * compaction_warp + lane;
            const bool set = j < end && cuda::load_volatile(live + j) != 0;
            const unsigned ballot = __ballot_sync(compaction_mask, set);
            if (set) {
                const int at = p + __popc(ballot & below);
                next.kept[at] = j;
                if (next.ids_out) next.ids_out[at] = next.ids_in[j];
                live[j] = 0;  // ready for the next layer
            }
            p += __popc(ballot);
        }
        offset += total;
        j0 += chunk;
    }
    if (threadIdx.x == 0) *next.kept_count = offset;
}

// The layer's compaction, run by the block that finishes last (compact_live's work without a
// launch of its own; an H200 at 1024 neurons spent 7.6 us per late layer on that launch beside
// a 30.6 us layer), as CUDA's threadfence reduction: once the block's threads are past a
// barrier, one fences (making the block's outputs and flags visible to the device) and counts
// the block in next.arrived; the block that takes the last ticket fences, ranks the flags with
// its stage buffer as the scan's shared memory, and sets the counter back to zero.
__device__ __forceinline__ void compact_if_last(std::int32_t* live, int k, const Compaction& next,
                                                cuda::SharedPtr<int> scratch) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();  // after the barrier: cumulative over the block's stores before it
        scratch[0] = atomicAdd(next.arrived, 1);
    }
    __syncthreads();
    const bool last = scratch[0] == static_cast<int>(gridDim.x * gridDim.y) - 1;
    __syncthreads();  // scratch holds the scan's totals next
    if (!last) return;
    __threadfence();
    compact_flags<4, 2>(live, k, next, scratch);
    if (threadIdx.x == 0) *next.arrived = 0;
}

}  // namespace tessel::spdnn::device::detail
