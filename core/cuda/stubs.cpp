// Stand-ins for the CUDA backend in builds without it: every device entry point of core (SpMM,
// SpGEMM, GEMM, the backprojection, the operator's device half) throws NotCompiled, generated
// from the lists of core/cuda/entry_points.hpp.
#include "core/cuda/entry_points.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/backprojection.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/kernels/spgemm.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/operator/spmm_operator.hpp"

namespace tessel::cuda {

void not_compiled(const char* what) {
    TESSEL_THROW(NotCompiled, std::string(what) +
                                  ": this build of tessel has no CUDA backend (configure with "
                                  "-DTESSEL_ENABLE_CUDA=ON and nvcc, or =SIM for the simulated device)");
}

bool device_available() { return false; }
std::string device_description() { return "none (built without CUDA)"; }
int device_count() { return 0; }
std::int64_t device_free_memory(int) { return 0; }
double create_context() { return 0; }

// Every entry point of core/cuda/entry_points.hpp, for every value and index type.
#define TESSEL_STUBS(V, I)                                           \
    TESSEL_CUDA_SPMM_ENTRY_POINTS(TESSEL_CUDA_STUB_ENTRY, V, I)      \
    TESSEL_CUDA_SPGEMM_ENTRY_POINTS(TESSEL_CUDA_STUB_ENTRY, V, I)
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_STUBS)
#undef TESSEL_STUBS

GemmHandle::GemmHandle(void*) { not_compiled("cuda::GemmHandle"); }
GemmHandle::~GemmHandle() = default;
GemmHandle::GemmHandle(GemmHandle&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
GemmHandle& GemmHandle::operator=(GemmHandle&& other) noexcept {
    handle_ = other.handle_;
    other.handle_ = nullptr;
    return *this;
}

TESSEL_CUDA_BACKPROJECTION_ENTRY_POINTS(TESSEL_CUDA_STUB_ENTRY, float)
TESSEL_CUDA_BACKPROJECTION_ENTRY_POINTS(TESSEL_CUDA_STUB_ENTRY, double)

}  // namespace tessel::cuda

namespace tessel {

TESSEL_CUDA_GEMM_ENTRY_POINTS(TESSEL_CUDA_STUB_FUNCTION, float)
TESSEL_CUDA_GEMM_ENTRY_POINTS(TESSEL_CUDA_STUB_FUNCTION, double)

// The operator's cuda half: never reached (resolve_backend refuses cuda first), but defined.
template <typename V, typename I>
struct SpmmOperator<V, I>::Device {};
template <typename V, typename I>
void SpmmOperator<V, I>::DeviceDeleter::operator()(Device* d) const {
    delete d;
}
TESSEL_CUDA_OPERATOR_ENTRY_POINTS(TESSEL_CUDA_STUB_OPERATOR_MEMBER, V, I)

#define TESSEL_INSTANTIATE(V, I) template class SpmmOperator<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
