// The cuda rate table without CUDA in the build: asking for it throws NotCompiled.
#include "apps/ccsd_abcd/advice/cuda_rates.hpp"

#include "core/error.hpp"

namespace tessel::abcd {

CudaRates measure_cuda_rates(bool, const std::vector<size_type>&, double) {
    TESSEL_THROW(NotCompiled, "the cuda rate table of tessel-abcd is not in this build (configure with "
                              "TESSEL_ENABLE_CUDA=ON and nvcc)");
}

}  // namespace tessel::abcd
