// Stand-ins for the CUDA backend in builds without nvcc: they throw NotCompiled.
#include "core/cuda/entry_points.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/operator/spmm_operator.hpp"

namespace tessel::cuda {

[[noreturn]] void not_compiled(const char* what) {
    TESSEL_THROW(NotCompiled, std::string(what) +
                                  ": this build of tessel has no CUDA backend (nvcc was not found "
                                  "at configure time)");
}

bool device_available() { return false; }
std::string device_description() { return "none (built without CUDA)"; }

// Every entry point of core/cuda/entry_points.hpp, for every value and index type.
#define TESSEL_STUBS(V, I) TESSEL_CUDA_SPMM_ENTRY_POINTS(TESSEL_CUDA_STUB_ENTRY, V, I)
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_STUBS)
#undef TESSEL_STUBS

}  // namespace tessel::cuda

namespace tessel {

// The operator's cuda half: never reached (resolve_backend refuses cuda first), but defined.
template <typename V, typename I>
struct SpmmOperator<V, I>::Device {};
template <typename V, typename I>
void SpmmOperator<V, I>::DeviceDeleter::operator()(Device* d) const {
    delete d;
}
template <typename V, typename I>
void SpmmOperator<V, I>::make_device() {
    cuda::not_compiled("SpmmOperator on cuda");
}
template <typename V, typename I>
void SpmmOperator<V, I>::multiply_on_device(DenseView<const V>, DenseView<V>, const Epilogue<V>&, void*, bool) {
    cuda::not_compiled("SpmmOperator::multiply_device");
}
template <typename V, typename I>
void SpmmOperator<V, I>::multiply_transposed_on_device(DenseView<const V>, DenseView<V>, const Epilogue<V>&) {
    cuda::not_compiled("SpmmOperator::multiply_transposed");
}

#define TESSEL_INSTANTIATE(V, I) template class SpmmOperator<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
