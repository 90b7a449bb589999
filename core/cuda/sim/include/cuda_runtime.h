// tessel's CUDA simulator: what nvcc gives every .cu file (the runtime API, the kernel
// keywords, threadIdx & co., barriers, warp intrinsics, atomics), mapped onto the simulator's
// grids of fibers (core/cuda/sim/). The build force-includes it into every .cu file, as nvcc
// does with its own cuda_runtime.h.
#pragma once

#include <cuda_runtime_api.h>

#include "core/cuda/sim/execution/device_intrinsics.hpp"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// Not checked by the simulator (a real device refuses a launch past them): docs/core.md.
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

#define threadIdx (::tessel::sim::current_thread().thread_idx)
#define blockIdx (::tessel::sim::current_block().block_idx)
#define blockDim (::tessel::sim::current_block().block_dim)
#define gridDim (::tessel::sim::current_block().grid_dim)
#define warpSize 32
