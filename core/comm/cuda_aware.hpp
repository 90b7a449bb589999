// Whether MPI can take device pointers (CUDA-aware MPI), and the staging policy that follows.
#pragma once

#include <string_view>

namespace tessel::comm {

/// Where the buffers handed to MPI live when the local kernels run on a GPU.
enum class DeviceStaging {
    host,       // copy device buffers to the host, communicate, copy back (the default)
    cuda_aware  // hand device pointers to MPI (only when cuda_aware_mpi() is true)
};

/// True when this MPI was built CUDA-aware (MPIX_CUDA_AWARE_SUPPORT) and says so at run time
/// (MPIX_Query_cuda_support); false for every other MPI. Never throws.
bool cuda_aware_mpi();

/// host, unless `want_cuda_aware` and cuda_aware_mpi(): the branch the distributed operators
/// take, printed by --verbose.
DeviceStaging choose_device_staging(bool want_cuda_aware);

std::string_view to_string(DeviceStaging staging);

}  // namespace tessel::comm
