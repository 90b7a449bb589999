// Sliced ELL conversions.
#include "core/formats/sliced_ell.hpp"

#include <algorithm>

#include "core/instantiate.hpp"

namespace tessel {

template <typename V, typename I>
SlicedEll<V, I> sliced_ell_from_csr(const Csr<V, I>& a) {
    constexpr size_type h = SlicedEll<V, I>::slice_height;
    SlicedEll<V, I> ell;
    ell.rows = a.rows();
    ell.cols = a.cols();
    ell.nnz = a.nnz();
    const size_type slices = (a.rows() + h - 1) / h;
    ell.slice_ptr.assign(slices + 1, 0);
    for (size_type s = 0; s < slices; ++s) {
        size_type width = 0;
        for (size_type i = s * h; i < std::min(a.rows(), (s + 1) * h); ++i)
            width = std::max(width, a.row_nnz(i));
        ell.slice_ptr[s + 1] = ell.slice_ptr[s] + width;
    }
    ell.col_idx.assign(ell.slice_ptr.back() * h, I{0});
    ell.values.assign(ell.slice_ptr.back() * h, V{0});
#pragma omp parallel for schedule(dynamic, 64)
    for (size_type s = 0; s < slices; ++s)
        for (size_type r = 0; r < h && s * h + r < a.rows(); ++r) {
            const size_type i = s * h + r, begin = a.row_ptr()[i];
            for (size_type m = 0; m < a.row_nnz(i); ++m) {
                const size_type slot = (ell.slice_ptr[s] + m) * h + r;
                ell.col_idx[slot] = a.col_idx()[begin + m];
                ell.values[slot] = a.values()[begin + m];
            }
        }
    return ell;
}

template <typename V, typename I>
Csr<V, I> csr_from_sliced_ell(const SlicedEll<V, I>& a) {
    constexpr size_type h = SlicedEll<V, I>::slice_height;
    Coo<V, I> coo;
    coo.rows = a.rows;
    coo.cols = a.cols;
    for (size_type s = 0; s < a.num_slices(); ++s)
        for (size_type m = a.slice_ptr[s]; m < a.slice_ptr[s + 1]; ++m)
            for (size_type r = 0; r < h && s * h + r < a.rows; ++r)
                if (a.values[m * h + r] != V{0}) {
                    coo.row.push_back(static_cast<I>(s * h + r));
                    coo.col.push_back(a.col_idx[m * h + r]);
                    coo.values.push_back(a.values[m * h + r]);
                }
    return csr_from_coo(coo, "sliced_ell");
}

#define TESSEL_INSTANTIATE(V, I)                                               \
    template SlicedEll<V, I> sliced_ell_from_csr(const Csr<V, I>&);            \
    template Csr<V, I> csr_from_sliced_ell(const SlicedEll<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
