// Stand-ins for the CUDA backend in builds without it: every device entry point of core (SpMM,
// SpGEMM, GEMM, the backprojection, the operator's device half) throws NotCompiled, generated
// from the lists of core/cuda/entry_points.hpp where the entry points are templates.
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
void gemm(GemmHandle&, size_type, size_type, size_type, double, const double*, size_type, const double*, size_type,
          double, double*, size_type) {
    not_compiled("cuda::gemm");
}
void gemm(GemmHandle&, size_type, size_type, size_type, float, const float*, size_type, const float*, size_type, float,
          float*, size_type) {
    not_compiled("cuda::gemm");
}
void gemm_batched(GemmHandle&, size_type, size_type, size_type, double, const double* const*, size_type,
                  const double* const*, size_type, double, double* const*, size_type, size_type) {
    not_compiled("cuda::gemm_batched");
}
void gemm_batched(GemmHandle&, size_type, size_type, size_type, float, const float* const*, size_type,
                  const float* const*, size_type, float, float* const*, size_type, size_type) {
    not_compiled("cuda::gemm_batched");
}

template <>
void backproject(DenseView<const float>, const ParallelBeam&, DenseView<float>) {
    not_compiled("cuda::backproject");
}
template <>
void backproject(DenseView<const double>, const ParallelBeam&, DenseView<double>) {
    not_compiled("cuda::backproject");
}

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
void SpmmOperator<V, I>::multiply_transposed_on_device(DenseView<const V>, DenseView<V>, const Epilogue<V>&, void*,
                                                       bool) {
    cuda::not_compiled("SpmmOperator::multiply_transposed");
}

#define TESSEL_INSTANTIATE(V, I) template class SpmmOperator<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
