// Stand-ins for the CUDA backend in builds without nvcc: they throw NotCompiled.
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/cuda/resident_csr.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::cuda {

namespace {
[[noreturn]] void not_compiled(const char* what) {
    TESSEL_THROW(NotCompiled, std::string(what) +
                                  ": this build of tessel has no CUDA backend (nvcc was not found "
                                  "at configure time)");
}
}  // namespace

bool device_available() { return false; }
std::string device_description() { return "none (built without CUDA)"; }

template <typename V, typename I>
void spmm_warp_row(const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&) {
    not_compiled("cuda::spmm_warp_row");
}
template <typename V, typename I>
void spmm_merge(const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&) {
    not_compiled("cuda::spmm_merge");
}
template <typename V, typename I>
void spmm_cusparse(const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&) {
    not_compiled("cuda::spmm_cusparse");
}
template <typename V, typename I>
void spmm_tiled_ell(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&,
                    int) {
    not_compiled("cuda::spmm_tiled_ell");
}

template <typename V, typename I>
struct ResidentCsr<V, I>::Device {};

template <typename V, typename I>
ResidentCsr<V, I>::ResidentCsr(const Csr<V, I>&) {
    not_compiled("cuda::ResidentCsr");
}
template <typename V, typename I>
ResidentCsr<V, I>::~ResidentCsr() = default;
template <typename V, typename I>
ResidentCsr<V, I>::ResidentCsr(ResidentCsr&&) noexcept = default;
template <typename V, typename I>
ResidentCsr<V, I>& ResidentCsr<V, I>::operator=(ResidentCsr&&) noexcept = default;
template <typename V, typename I>
void ResidentCsr<V, I>::spmm(DenseView<const V>, DenseView<V>) {
    not_compiled("cuda::ResidentCsr::spmm");
}

#define TESSEL_INSTANTIATE(V, I)                                                               \
    template class ResidentCsr<V, I>;                                                          \
    template void spmm_warp_row(const Csr<V, I>&, DenseView<const V>, DenseView<V>,            \
                                const Epilogue<V>&);                                           \
    template void spmm_merge(const Csr<V, I>&, DenseView<const V>, DenseView<V>,               \
                             const Epilogue<V>&);                                              \
    template void spmm_cusparse(const Csr<V, I>&, DenseView<const V>, DenseView<V>,            \
                                const Epilogue<V>&);                                           \
    template void spmm_tiled_ell(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>,      \
                                 const Epilogue<V>&, int);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda
