// The checks every backend's SpGEMM makes on its operands and on a plan it is handed: one copy
// for reference, cpu and cuda, so that they refuse the same inputs with the same words.
#pragma once

#include <string>

#include "core/error.hpp"
#include "core/formats/csr.hpp"
#include "core/kernels/spgemm.hpp"

namespace tessel::detail {

/// Throws DimensionMismatch "WHAT: A is 20x30, B is 31x10" unless A's columns meet B's rows.
template <typename ValueType, typename IndexType>
void check_spgemm_operands(const Csr<ValueType, IndexType>& a, const Csr<ValueType, IndexType>& b, const char* what) {
    TESSEL_ENSURE_DIMS(a.cols() == b.rows(), std::string(what) + ": A is " + std::to_string(a.rows()) + "x" +
                                                 std::to_string(a.cols()) + ", B is " + std::to_string(b.rows()) +
                                                 "x" + std::to_string(b.cols()));
}

/// check_spgemm_operands, then throws InvalidInput "WHAT: the plan was made for other operands
/// (plan: ...)" unless `plan` was made for A and B (their shapes and nonzero counts).
template <typename ValueType, typename IndexType>
void check_spgemm_plan(const SpgemmPlan& plan, const Csr<ValueType, IndexType>& a, const Csr<ValueType, IndexType>& b,
                       const char* what) {
    check_spgemm_operands(a, b, what);
    if (plan.rows != a.rows() || plan.inner != a.cols() || plan.cols != b.cols() || plan.a_nnz != a.nnz() ||
        plan.b_nnz != b.nnz() || static_cast<size_type>(plan.row_ptr.size()) != plan.rows + 1)
        TESSEL_INVALID_INPUT(std::string(what), 0,
                             "the plan was made for other operands (plan: " + std::to_string(plan.rows) + "x" +
                                 std::to_string(plan.inner) + " times " + std::to_string(plan.inner) + "x" +
                                 std::to_string(plan.cols) + ", nnz " + std::to_string(plan.a_nnz) + " and " +
                                 std::to_string(plan.b_nnz) + ")");
}

}  // namespace tessel::detail
