// The cpu SpGEMM entry points (core/kernels/spgemm.hpp): the phases run at the level chosen at
// start-up (core/cpu/isa_dispatch.hpp); each phase checks its operands (spgemm_checks.hpp).
#include "core/cpu/isa_dispatch.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spgemm.hpp"

namespace tessel::cpu {

template <typename V, typename I>
SpgemmPlan spgemm_symbolic(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    TESSEL_CPU_DISPATCH(spgemm_symbolic(a, b, options));
}

template <typename V, typename I>
void spgemm_numeric(const SpgemmPlan& plan, const Csr<V, I>& a, const Csr<V, I>& b, Csr<V, I>& c) {
    TESSEL_CPU_DISPATCH(spgemm_numeric(plan, a, b, c));
}

template <typename V, typename I>
Csr<V, I> spgemm(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    const SpgemmPlan plan = cpu::spgemm_symbolic(a, b, options);
    Csr<V, I> c;
    cpu::spgemm_numeric(plan, a, b, c);
    return c;
}

template <typename V, typename I>
Csr<V, I> spgemm_pattern(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    TESSEL_CPU_DISPATCH(spgemm_pattern(a, b, options));
}

#define TESSEL_INSTANTIATE(V, I)                                                                    \
    template SpgemmPlan spgemm_symbolic(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&);  \
    template void spgemm_numeric(const SpgemmPlan&, const Csr<V, I>&, const Csr<V, I>&, Csr<V, I>&); \
    template Csr<V, I> spgemm(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&);            \
    template Csr<V, I> spgemm_pattern(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cpu
