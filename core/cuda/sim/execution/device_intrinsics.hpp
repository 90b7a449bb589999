// The device side of tessel's CUDA simulator as kernels see it: the running thread and block,
// __syncthreads, the warp intrinsics, atomics and the misc intrinsics. Everything here runs
// inside a simulated thread (a fiber, core/cuda/sim/execution/block_runner.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/cuda/sim/execution/shared_memory.hpp"

namespace tessel::sim {

/// The simulated thread now running on this host thread.
struct ThreadContext {
    uint3 thread_idx;
    int linear = 0;  // x + y*bx + z*bx*by
    int lane = 0;
    int warp = 0;
};
/// The block it belongs to.
struct BlockContext {
    uint3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
};

extern thread_local ThreadContext* running_thread;
extern thread_local BlockContext* running_block;

inline ThreadContext& current_thread() { return *running_thread; }
inline BlockContext& current_block() { return *running_block; }

/// __syncthreads: waits for every thread of the block that has not exited.
void block_barrier();
/// Lets the other threads of the block run (spin loops, __nanosleep).
void yield_thread();

/// The warp collectives, exchanged among the lanes named in the mask.
enum class WarpOp { sync, shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all, reduce_add, reduce_min, reduce_max,
                     reduce_and, reduce_or, reduce_xor, match_any };
/// Waits until every lane of `mask` has arrived at the same collective, then returns this
/// lane's result (value bits for shuffles, the vote for votes, the reduction of the lanes'
/// 32-bit values for reductions (arg 1: as signed), the lanes holding the same value for match).
std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width);
/// The lanes of this warp that have not exited.
unsigned active_lanes();

template <typename T>
T shuffle(WarpOp op, unsigned mask, T value, int arg, int width) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffles move 8 bytes at most");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    bits = warp_collective(op, mask, bits, arg, width);
    T result;
    std::memcpy(&result, &bits, sizeof(T));
    return result;
}

}  // namespace tessel::sim

inline void __syncthreads() { ::tessel::sim::block_barrier(); }
inline void __syncwarp(unsigned mask = 0xffffffffu) {
    ::tessel::sim::warp_collective(::tessel::sim::WarpOp::sync, mask, 0, 0, 32);
}
inline unsigned __activemask() { return ::tessel::sim::active_lanes(); }

template <typename T>
T __shfl_sync(unsigned mask, T value, int src_lane, int width = 32) {
    return ::tessel::sim::shuffle(::tessel::sim::WarpOp::shfl, mask, value, src_lane, width);
}
template <typename T>
T __shfl_up_sync(unsigned mask, T value, unsigned delta, int width = 32) {
    return ::tessel::sim::shuffle(::tessel::sim::WarpOp::shfl_up, mask, value, int(delta), width);
}
template <typename T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta, int width = 32) {
    return ::tessel::sim::shuffle(::tessel::sim::WarpOp::shfl_down, mask, value, int(delta), width);
}
template <typename T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = 32) {
    return ::tessel::sim::shuffle(::tessel::sim::WarpOp::shfl_xor, mask, value, lane_mask, width);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
    return unsigned(::tessel::sim::warp_collective(::tessel::sim::WarpOp::ballot, mask, predicate != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int predicate) {
    return int(::tessel::sim::warp_collective(::tessel::sim::WarpOp::any, mask, predicate != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int predicate) {
    return int(::tessel::sim::warp_collective(::tessel::sim::WarpOp::all, mask, predicate != 0, 0, 32));
}

// The sm_80 warp reductions (redux.sync) on 32-bit values, and __match_any_sync (sm_70).
namespace tessel::sim {
template <typename T>
T warp_reduce(WarpOp op, unsigned mask, T value) {
    static_assert(sizeof(T) == 4, "the warp reductions take 32-bit values");
    return T(warp_collective(op, mask, std::uint32_t(value), std::is_signed_v<T> ? 1 : 0, 32));
}
}  // namespace tessel::sim
inline unsigned __reduce_add_sync(unsigned mask, unsigned value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_add, mask, value);
}
inline int __reduce_add_sync(unsigned mask, int value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_add, mask, value);
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_min, mask, value);
}
inline int __reduce_min_sync(unsigned mask, int value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_min, mask, value);
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_max, mask, value);
}
inline int __reduce_max_sync(unsigned mask, int value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_max, mask, value);
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_and, mask, value);
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_or, mask, value);
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned value) {
    return ::tessel::sim::warp_reduce(::tessel::sim::WarpOp::reduce_xor, mask, value);
}
template <typename T>
unsigned __match_any_sync(unsigned mask, T value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_any_sync takes 32- or 64-bit values");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return unsigned(::tessel::sim::warp_collective(::tessel::sim::WarpOp::match_any, mask, bits, 0, 32));
}

// Atomics on global memory: real atomics, since blocks run on several host threads.
template <typename T>
T atomicAdd(T* address, std::type_identity_t<T> value) {
    return std::atomic_ref<T>(*address).fetch_add(value);
}
template <typename T>
T atomicSub(T* address, std::type_identity_t<T> value) {
    return std::atomic_ref<T>(*address).fetch_sub(value);
}
template <typename T>
T atomicExch(T* address, std::type_identity_t<T> value) {
    return std::atomic_ref<T>(*address).exchange(value);
}
template <typename T>
T atomicCAS(T* address, std::type_identity_t<T> expected, std::type_identity_t<T> desired) {
    std::atomic_ref<T>(*address).compare_exchange_strong(expected, desired);
    return expected;  // the old value, whether or not it was replaced
}
template <typename T>
T atomicMax(T* address, std::type_identity_t<T> value) {
    std::atomic_ref<T> a(*address);
    T old = a.load();
    while (old < value && !a.compare_exchange_weak(old, value)) {
    }
    return old;
}

// Atomics on shared memory: a block runs on one host thread, so plain operations are atomic;
// the race check records them as atomic accesses.
template <typename T>
T atomicAdd(::tessel::sim::SharedPtr<T> address, std::type_identity_t<T> value) {
    T* p = address.checked(::tessel::sim::Access::atomic_write);
    const T old = *p;
    *p = old + value;
    return old;
}
template <typename T>
T atomicSub(::tessel::sim::SharedPtr<T> address, std::type_identity_t<T> value) {
    T* p = address.checked(::tessel::sim::Access::atomic_write);
    const T old = *p;
    *p = old - value;
    return old;
}
template <typename T>
T atomicExch(::tessel::sim::SharedPtr<T> address, std::type_identity_t<T> value) {
    T* p = address.checked(::tessel::sim::Access::atomic_write);
    const T old = *p;
    *p = value;
    return old;
}
template <typename T>
T atomicCAS(::tessel::sim::SharedPtr<T> address, std::type_identity_t<T> expected, std::type_identity_t<T> desired) {
    T* p = address.checked(::tessel::sim::Access::atomic_write);
    const T old = *p;
    if (old == expected) *p = desired;
    return old;
}

template <typename T>
T __ldg(const T* address) {
    return *address;
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { ::tessel::sim::yield_thread(); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
