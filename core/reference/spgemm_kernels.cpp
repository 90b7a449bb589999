// Reference SpGEMM: the obvious serial loops with a std::set / std::map per row, never tuned.
// It is the oracle for every other SpGEMM kernel.
#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spgemm.hpp"
#include "core/kernels/spgemm_checks.hpp"

namespace tessel::reference {

namespace {

// The sorted columns of row i of A·B.
template <typename V, typename I>
std::set<I> row_pattern(const Csr<V, I>& a, const Csr<V, I>& b, size_type i) {
    std::set<I> cols;
    for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
        const I j = a.col_idx()[e];
        for (size_type f = b.row_ptr()[j]; f < b.row_ptr()[j + 1]; ++f) cols.insert(b.col_idx()[f]);
    }
    return cols;
}

}  // namespace

template <typename V, typename I>
SpgemmPlan spgemm_symbolic(const Csr<V, I>& a, const Csr<V, I>& b) {
    ::tessel::detail::check_spgemm_operands(a, b, "reference::spgemm_symbolic");
    SpgemmPlan plan;
    plan.backend = Backend::reference;
    plan.rows = a.rows();
    plan.inner = a.cols();
    plan.cols = b.cols();
    plan.a_nnz = a.nnz();
    plan.b_nnz = b.nnz();
    plan.row_ptr.assign(static_cast<std::size_t>(a.rows()) + 1, 0);
    for (size_type i = 0; i < a.rows(); ++i) {
        size_type flops = 0;
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e)
            flops += b.row_nnz(a.col_idx()[e]);
        plan.flops += flops;
        plan.max_row_flops = std::max(plan.max_row_flops, flops);
        const size_type n = static_cast<size_type>(row_pattern(a, b, i).size());
        plan.max_row_nnz = std::max(plan.max_row_nnz, n);
        plan.row_ptr[i + 1] = plan.row_ptr[i] + n;
    }
    plan.row_blocks = {0, a.rows()};
    plan.sort_columns = true;
    plan.reason = "reference: std::set / std::map per row";
    return plan;
}

template <typename V, typename I>
void spgemm_numeric(const SpgemmPlan& plan, const Csr<V, I>& a, const Csr<V, I>& b, Csr<V, I>& c) {
    ::tessel::detail::check_spgemm_plan(plan, a, b, "reference::spgemm_numeric");
    std::vector<I> col;
    std::vector<V> val;
    col.reserve(static_cast<std::size_t>(plan.nnz()));
    val.reserve(static_cast<std::size_t>(plan.nnz()));
    for (size_type i = 0; i < a.rows(); ++i) {
        std::map<I, V> row;
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            const I j = a.col_idx()[e];
            for (size_type f = b.row_ptr()[j]; f < b.row_ptr()[j + 1]; ++f)
                row[b.col_idx()[f]] += a.values()[e] * b.values()[f];
        }
        if (static_cast<size_type>(row.size()) != plan.row_nnz(i))
            TESSEL_INVALID_INPUT("reference::spgemm_numeric", i + 1,
                                 "row " + std::to_string(i) + " of A·B has " +
                                     std::to_string(row.size()) + " entries, the plan " +
                                     std::to_string(plan.row_nnz(i)));
        for (const auto& [j, v] : row) {
            col.push_back(j);
            val.push_back(v);
        }
    }
    c = Csr<V, I>(plan.rows, plan.cols, plan.row_ptr, std::move(col), std::move(val), "spgemm");
}

template <typename V, typename I>
Csr<V, I> spgemm(const Csr<V, I>& a, const Csr<V, I>& b) {
    const SpgemmPlan plan = reference::spgemm_symbolic(a, b);
    Csr<V, I> c;
    reference::spgemm_numeric(plan, a, b, c);
    return c;
}

template <typename V, typename I>
Csr<V, I> spgemm_pattern(const Csr<V, I>& a, const Csr<V, I>& b) {
    ::tessel::detail::check_spgemm_operands(a, b, "reference::spgemm_pattern");
    std::vector<size_type> row_ptr{0};
    std::vector<I> col;
    for (size_type i = 0; i < a.rows(); ++i) {
        for (I j : row_pattern(a, b, i)) col.push_back(j);
        row_ptr.push_back(static_cast<size_type>(col.size()));
    }
    std::vector<V> val(col.size(), V(1));
    return Csr<V, I>(a.rows(), b.cols(), std::move(row_ptr), std::move(col), std::move(val),
                     "spgemm_pattern");
}

#define TESSEL_INSTANTIATE(V, I)                                                                \
    template SpgemmPlan spgemm_symbolic(const Csr<V, I>&, const Csr<V, I>&);                    \
    template void spgemm_numeric(const SpgemmPlan&, const Csr<V, I>&, const Csr<V, I>&,         \
                                 Csr<V, I>&);                                                   \
    template Csr<V, I> spgemm(const Csr<V, I>&, const Csr<V, I>&);                              \
    template Csr<V, I> spgemm_pattern(const Csr<V, I>&, const Csr<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::reference
