// Streams and events of the simulated device (internal to core/cuda/sim). Work issued to a
// stream is queued and runs only when something waits for it (a synchronize, a query, a
// blocking copy, an event waited on), in stream order, so that host code that reads a result
// before waiting for it, or a stream that uses another's result without an event, sees stale
// data as it may on a GPU. The legacy default stream (nullptr) waits for, and is waited for by,
// every stream created without cudaStreamNonBlocking.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace tessel::sim {

/// Whether `stream` is the default stream or a live stream of this process.
bool valid_stream(cudaStream_t stream);

/// Queues `work` on `stream` (after the legacy stream's implicit waits).
void enqueue(cudaStream_t stream, std::function<void()> work);

/// Runs everything queued on `stream`, in order.
void drain(cudaStream_t stream);

/// Runs everything queued on every stream.
void drain_all();

/// A fault of queued work, kept until a synchronizing call returns it (cudaSuccess if none);
/// reading it clears it.
cudaError_t take_async_error();
void set_async_error(cudaError_t status);

/// What a synchronizing call returns once it has waited: the fault of work it waited for (now
/// also the thread's last error), else cudaSuccess.
cudaError_t synchronized_status();

}  // namespace tessel::sim
