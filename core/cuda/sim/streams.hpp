// Streams and events of the simulated device (internal to core/cuda/sim). Work runs when it is
// issued, so stream order holds trivially; handles are checked so that a destroyed or foreign
// one is an error as on the GPU.
#pragma once

#include <cuda_runtime_api.h>

namespace tessel::sim {

/// Whether `stream` is the default stream or a live stream of this process.
bool valid_stream(cudaStream_t stream);

}  // namespace tessel::sim
