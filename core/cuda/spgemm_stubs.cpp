// Stand-ins for the CUDA SpGEMM in builds without nvcc: they throw NotCompiled.
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

template <typename V, typename I>
SpgemmPlan spgemm_symbolic(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&) {
    not_compiled("cuda::spgemm_symbolic");
}
template <typename V, typename I>
void spgemm_numeric(const SpgemmPlan&, const Csr<V, I>&, const Csr<V, I>&, Csr<V, I>&) {
    not_compiled("cuda::spgemm_numeric");
}
template <typename V, typename I>
Csr<V, I> spgemm(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&) {
    not_compiled("cuda::spgemm");
}
template <typename V, typename I>
Csr<V, I> spgemm_cusparse(const Csr<V, I>&, const Csr<V, I>&) {
    not_compiled("cuda::spgemm_cusparse");
}

#define TESSEL_INSTANTIATE(V, I)                                                               \
    template SpgemmPlan spgemm_symbolic(const Csr<V, I>&, const Csr<V, I>&,                    \
                                        const SpgemmOptions&);                                 \
    template void spgemm_numeric(const SpgemmPlan&, const Csr<V, I>&, const Csr<V, I>&,        \
                                 Csr<V, I>&);                                                  \
    template Csr<V, I> spgemm(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&);       \
    template Csr<V, I> spgemm_cusparse(const Csr<V, I>&, const Csr<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda
