// CUDA-aware MPI detection through Open MPI's extension header (absent elsewhere: false).
#include "core/comm/cuda_aware.hpp"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace tessel::comm {

bool cuda_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

DeviceStaging choose_device_staging(bool want_cuda_aware) {
    return want_cuda_aware && cuda_aware_mpi() ? DeviceStaging::cuda_aware : DeviceStaging::host;
}

std::string_view to_string(DeviceStaging staging) {
    return staging == DeviceStaging::host ? "host-staged" : "cuda-aware";
}

}  // namespace tessel::comm
