// Reference SpMM: the obvious loop, never tuned. It is the oracle for every other kernel.
#include "core/kernels/spmm_kernels.hpp"

#include "core/instantiate.hpp"

namespace tessel::reference {

template <typename V, typename I>
void spmm(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& epilogue) {
    check_spmm_dims(a.rows(), a.cols(), b, c);
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type j = 0; j < b.cols; ++j) {
            V sum = 0;
            for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e)
                sum += a.values()[e] * b(a.col_idx()[e], j);
            c(i, j) = epilogue.apply(sum, c(i, j));
        }
}

#define TESSEL_INSTANTIATE(V, I) \
    template void spmm(const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::reference
