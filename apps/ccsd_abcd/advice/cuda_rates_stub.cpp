// The cuda rate table without CUDA in the build: asking for it throws NotCompiled.
#include "apps/ccsd_abcd/advice/cuda_rates.hpp"

#include "core/cuda/entry_points.hpp"

namespace tessel::abcd {

CudaRates measure_cuda_rates(bool, const std::vector<size_type>&, double) {
    cuda::not_compiled("the cuda rate table of tessel-abcd");
}

}  // namespace tessel::abcd
