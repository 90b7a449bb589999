// Small kernels that exercise the CUDA simulator's checks, each right or wrong on purpose, and
// host functions that launch them (tests/cuda_sim/sim_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

namespace tessel::sim_test {

/// Reverses `n` floats (n <= 1024) through shared memory in one block, with or without the
/// __syncthreads between the writes and the reads. Returns the launch's status.
cudaError_t reverse_in_block(const std::vector<float>& in, std::vector<float>& out, bool with_barrier);
/// Sums 32 values per warp with __shfl_down_sync; `warps` warps of lanes 0..31 holding lane+w.
cudaError_t warp_sums(int warps, std::vector<int>& sums);
/// Ballot, any and all over lanes whose predicate is lane % 3 == 0.
cudaError_t warp_votes(unsigned& ballot, int& any, int& all);
/// The warp reductions (__reduce_*_sync) and __match_any_sync of reduce_kernel: lane l's ten
/// results at out[l*10 ..].
cudaError_t warp_reductions(std::vector<int>& out);
/// A shuffle whose mask names lanes 16..31, which have returned before it.
cudaError_t shuffle_with_exited_lanes();
/// Half the block waits in __syncthreads, the other half in a shuffle naming the first half.
cudaError_t barrier_deadlock();
/// Reads one float past the end of a 64-float dynamic shared array.
cudaError_t shared_out_of_bounds();
/// Every thread adds 1 to one shared counter with atomicAdd (no race): returns the count.
cudaError_t shared_atomic_count(int threads, int& count);
/// A launch of `threads` threads per block with `shared` bytes of dynamic shared memory,
/// opting in to `optin` bytes first when optin > 0.
cudaError_t launch_with(unsigned threads, std::size_t shared, int optin);
/// A kernel handed `p` as its output pointer (a host pointer makes the launch fail).
cudaError_t write_through(float* p);
/// Order of the threads of one block of `threads` running up to their first barrier.
std::vector<int> first_arrival_order(int threads);

/// A kernel fills device memory on a stream and an async copy brings one value into pinned
/// memory: `before` is what the host sees before waiting for the stream; returns the value after.
float read_before_and_after_sync(float& before);
/// A kernel on one stream writes x, one on another copies x to y, with or without the second
/// stream waiting for an event recorded after the first kernel; returns y's last value.
float across_streams(bool wait_for_event);

/// Stream-ordered memory: a DeviceBuffer made for stream `owner` (cudaMallocAsync), filled with
/// 7 by a kernel on another stream that waits for an event recorded after the allocation, or
/// (ordered false) does not. Returns the status of the filling stream's synchronisation and, on
/// success, the value read back in `value`.
cudaError_t fill_async_allocation(bool ordered, float& value);
/// A kernel launched on a stream after cudaFreeAsync of its output there: the launch's status.
cudaError_t launch_after_async_free();
/// A kernel enqueued on one stream before its memory is freed with cudaFreeAsync on another,
/// whose free waits for an event recorded after the kernel, or (ordered false) does not; both
/// streams synchronised, the freeing one first. Returns the kernel's stream's status.
cudaError_t run_across_async_free(bool ordered);

}  // namespace tessel::sim_test
