// What the library stand-ins share: a once-per-process notice of which results came from a
// stand-in rather than the simulated kernels, the check that an operand is device memory, and the
// wait for the work queued before a call.
#pragma once

#include <cuda_runtime_api.h>

namespace tessel::sim {

/// Prints "tessel-sim: <call> answered by the stand-in (<how>)" the first time `call` runs.
void note_stand_in(const char* call, const char* how);

/// Runs the work queued on `stream` (header-only stand-ins call it before they compute).
void drain_stream(cudaStream_t stream);

/// Whether p .. p+bytes is device memory (library arguments must be).
bool is_device_range(const void* p, unsigned long long bytes);

}  // namespace tessel::sim
