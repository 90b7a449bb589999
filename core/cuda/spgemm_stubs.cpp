// Stand-ins for the CUDA SpGEMM in builds without nvcc: they throw NotCompiled.
#include "core/cuda/entry_points.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spgemm.hpp"

namespace tessel::cuda {

namespace {
[[noreturn]] void not_compiled(const char* what) {
    TESSEL_THROW(NotCompiled, std::string(what) +
                                  ": this build of tessel has no CUDA backend (nvcc was not found "
                                  "at configure time)");
}
}  // namespace

// Every entry point of core/cuda/entry_points.hpp, for every value and index type.
#define TESSEL_STUBS(V, I) TESSEL_CUDA_SPGEMM_ENTRY_POINTS(TESSEL_CUDA_STUB_ENTRY, V, I)
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_STUBS)
#undef TESSEL_STUBS

}  // namespace tessel::cuda
