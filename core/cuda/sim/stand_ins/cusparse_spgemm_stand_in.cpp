// cuSPARSE SpGEMM stand-in: the documented call order (work estimation and compute, each asked
// for its buffer size first; the product's size; then copy into the caller's arrays), 32-bit
// indices, beta = 0, and the product computed by tessel::reference::spgemm.
#include <string>

#include "core/cuda/sim/runtime/streams.hpp"
#include "core/cuda/sim/stand_ins/cusparse_descriptors.hpp"
#include "core/cuda/sim/stand_ins/stand_in_support.hpp"
#include "core/kernels/spgemm.hpp"

using tessel::sim::cusparse_invalid;

namespace {

constexpr std::size_t buffer_bytes = 256;

// A copy of a descriptor's device arrays as a tessel CSR, its values scaled by `scale`.
template <typename V>
tessel::Csr<V, std::int32_t> operand(const cusparseSpMatDescr& a, V scale) {
    std::vector<tessel::size_type> row_ptr(std::size_t(a.rows) + 1);
    const auto* offsets = static_cast<const std::int32_t*>(a.offsets);
    for (std::int64_t i = 0; i <= a.rows; ++i) row_ptr[std::size_t(i)] = offsets[i];
    const auto* col = static_cast<const std::int32_t*>(a.columns);
    const auto* val = static_cast<const V*>(a.values);
    std::vector<V> values(val, val + a.nnz);
    for (V& x : values) x *= scale;
    return tessel::Csr<V, std::int32_t>(a.rows, a.cols, std::move(row_ptr), std::vector<std::int32_t>(col, col + a.nnz),
                                        std::move(values), "cusparse operand");
}

template <typename V>
tessel::Csr<V, std::int32_t> product(const cusparseSpMatDescr& a, const cusparseSpMatDescr& b, V alpha) {
    return tessel::reference::spgemm(operand<V>(a, alpha), operand<V>(b, V(1)));
}

// What every SpGEMM call requires of its operands.
std::string spgemm_problem(cusparseOperation_t op_a, cusparseOperation_t op_b, const void* alpha, const void* beta,
                           const cusparseSpMatDescr* a, const cusparseSpMatDescr* b, const cusparseSpMatDescr* c,
                           cudaDataType type, cusparseSpGEMMDescr_t descr) {
    if (!a || !b || !c || !alpha || !beta || !descr) return "null argument";
    if (op_a != CUSPARSE_OPERATION_NON_TRANSPOSE || op_b != CUSPARSE_OPERATION_NON_TRANSPOSE)
        return "only non-transposed operands are supported";
    if (a->cols != b->rows || c->rows != a->rows || c->cols != b->cols) return "A, B and C do not fit together";
    if (a->type != type || b->type != type || c->type != type) return "value and compute types differ";
    for (const cusparseSpMatDescr* m : {a, b, c})
        if (m->offset_type != CUSPARSE_INDEX_32I || m->column_type != CUSPARSE_INDEX_32I)
            return "SpGEMM takes 32-bit indices only";
    const bool zero_beta = type == CUDA_R_64F ? *static_cast<const double*>(beta) == 0
                                              : *static_cast<const float*>(beta) == 0;
    if (!zero_beta) return "beta must be zero";
    std::string p = tessel::sim::csr_problem(*a, true);
    if (p.empty()) p = tessel::sim::csr_problem(*b, true);
    return p;
}

cusparseStatus_t sized_buffer(const char* call, std::size_t* size, void* buffer, bool& done) {
    done = false;
    if (size == nullptr) return cusparse_invalid(std::string(call) + ": null size pointer");
    if (buffer == nullptr) {
        *size = buffer_bytes;
        return CUSPARSE_STATUS_SUCCESS;
    }
    if (*size < buffer_bytes || !tessel::sim::is_device_range(buffer, buffer_bytes))
        return cusparse_invalid(std::string(call) + ": the buffer is not the device memory of the size asked for");
    done = true;
    return CUSPARSE_STATUS_SUCCESS;
}

}  // namespace

cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t* descr) {
    if (descr == nullptr) return cusparse_invalid("cusparseSpGEMM_createDescr: null pointer");
    *descr = new cusparseSpGEMMDescr;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr) {
    delete descr;
    return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t handle, cusparseOperation_t op_a,
                                               cusparseOperation_t op_b, const void* alpha, cusparseConstSpMatDescr_t a,
                                               cusparseConstSpMatDescr_t b, const void* beta, cusparseSpMatDescr_t c,
                                               cudaDataType type, cusparseSpGEMMAlg_t, cusparseSpGEMMDescr_t descr,
                                               std::size_t* size, void* buffer) {
    if (handle == nullptr) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (const std::string p = spgemm_problem(op_a, op_b, alpha, beta, a, b, c, type, descr); !p.empty())
        return cusparse_invalid("cusparseSpGEMM_workEstimation: " + p);
    bool done = false;
    const cusparseStatus_t s = sized_buffer("cusparseSpGEMM_workEstimation", size, buffer, done);
    if (done) descr->estimated = true;
    return s;
}

cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t handle, cusparseOperation_t op_a, cusparseOperation_t op_b,
                                        const void* alpha, cusparseConstSpMatDescr_t a, cusparseConstSpMatDescr_t b,
                                        const void* beta, cusparseSpMatDescr_t c, cudaDataType type, cusparseSpGEMMAlg_t,
                                        cusparseSpGEMMDescr_t descr, std::size_t* size, void* buffer) {
    if (handle == nullptr) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (const std::string p = spgemm_problem(op_a, op_b, alpha, beta, a, b, c, type, descr); !p.empty())
        return cusparse_invalid("cusparseSpGEMM_compute: " + p);
    if (!descr->estimated) return cusparse_invalid("cusparseSpGEMM_compute before cusparseSpGEMM_workEstimation");
    bool done = false;
    const cusparseStatus_t s = sized_buffer("cusparseSpGEMM_compute", size, buffer, done);
    if (!done) return s;
    tessel::sim::note_stand_in("cusparseSpGEMM", "tessel::reference::spgemm");
    tessel::sim::drain(handle->stream);  // the call runs after the work queued before it
    if (type == CUDA_R_64F) {
        descr->product_d = product<double>(*a, *b, *static_cast<const double*>(alpha));
        c->nnz = descr->product_d.nnz();
    } else {
        descr->product_f = product<float>(*a, *b, *static_cast<const float*>(alpha));
        c->nnz = descr->product_f.nnz();
    }
    descr->computed = true;
    return CUSPARSE_STATUS_SUCCESS;
}

namespace {
template <typename V>
void copy_out(const tessel::Csr<V, std::int32_t>& p, cusparseSpMatDescr& c) {
    auto* offsets = static_cast<std::int32_t*>(c.offsets);
    for (std::int64_t i = 0; i <= c.rows; ++i) offsets[i] = std::int32_t(p.row_ptr()[std::size_t(i)]);
    std::copy(p.col_idx().begin(), p.col_idx().end(), static_cast<std::int32_t*>(c.columns));
    std::copy(p.values().begin(), p.values().end(), static_cast<V*>(c.values));
}
}  // namespace

cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t handle, cusparseOperation_t op_a, cusparseOperation_t op_b,
                                     const void* alpha, cusparseConstSpMatDescr_t a, cusparseConstSpMatDescr_t b,
                                     const void* beta, cusparseSpMatDescr_t c, cudaDataType type, cusparseSpGEMMAlg_t,
                                     cusparseSpGEMMDescr_t descr) {
    if (handle == nullptr) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (const std::string p = spgemm_problem(op_a, op_b, alpha, beta, a, b, c, type, descr); !p.empty())
        return cusparse_invalid("cusparseSpGEMM_copy: " + p);
    if (!descr->computed) return cusparse_invalid("cusparseSpGEMM_copy before cusparseSpGEMM_compute");
    if (const std::string p = tessel::sim::csr_problem(*c, true); !p.empty())
        return cusparse_invalid("cusparseSpGEMM_copy: C (after cusparseCsrSetPointers): " + p);
    tessel::sim::drain(handle->stream);
    if (type == CUDA_R_64F)
        copy_out(descr->product_d, *c);
    else
        copy_out(descr->product_f, *c);
    return CUSPARSE_STATUS_SUCCESS;
}
