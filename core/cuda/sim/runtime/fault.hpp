// A fault of simulated device code (race, bounds, mask, deadlock, bad launch): the launch that
// raised it fails with `status`, and the message says what and where.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace tessel::sim {

struct Fault : std::runtime_error {
    Fault(cudaError_t s, const std::string& message) : std::runtime_error(message), status(s) {}
    cudaError_t status;
};

/// Where the running thread is, for messages: "kernel K, block (x,y,z), thread (x,y,z)";
/// empty outside device code. Defined by the execution layer (execution/block_runner.cpp),
/// which knows the running block: faults are raised from every layer, so they cannot include it.
std::string where();

/// Throws Fault; the message names the running kernel, block and thread when there is one.
[[noreturn]] void fault(cudaError_t status, const std::string& what);

/// Records a failed call as the thread's last error, with the simulator's explanation (shown by
/// TESSEL_CUDA_CHECK after the runtime's own message), and returns `status`.
cudaError_t fail(cudaError_t status, const std::string& why);

/// Makes `status` the thread's last error without a new explanation (the fault that caused it
/// already gave one), and returns it.
cudaError_t set_last_error(cudaError_t status);

}  // namespace tessel::sim
