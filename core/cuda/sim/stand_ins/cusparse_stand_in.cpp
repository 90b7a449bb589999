// cuSPARSE stand-in: descriptors and the SpMM / SpGEMM calls checked as cuSPARSE documents
// them (sizes, leading dimensions, index and value types, call order, buffers, device
// operands) and computed with tessel's reference kernels on the device arrays (SpMM as work
// queued on the handle's stream, like a kernel; SpGEMM, whose sizes the host reads, at once).
#include <cusparse.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/cuda/sim/runtime/fault.hpp"
#include "core/cuda/sim/runtime/streams.hpp"
#include "core/cuda/sim/stand_ins/cusparse_descriptors.hpp"
#include "core/cuda/sim/stand_ins/stand_in_support.hpp"
#include "core/dense.hpp"
#include "core/formats/csr.hpp"
#include "core/kernels/spgemm.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace {

using tessel::size_type;

std::size_t value_bytes(cudaDataType t) { return t == CUDA_R_64F ? 8 : 4; }
std::size_t index_bytes(cusparseIndexType_t t) { return t == CUSPARSE_INDEX_64I ? 8 : 4; }

std::int64_t read_index(const void* p, cusparseIndexType_t t, std::int64_t i) {
    return t == CUSPARSE_INDEX_64I ? static_cast<const std::int64_t*>(p)[i] : static_cast<const std::int32_t*>(p)[i];
}

}  // namespace

namespace tessel::sim {

cusparseStatus_t cusparse_invalid(const std::string& why) {
    tessel::sim::fail(cudaErrorInvalidValue, "cuSPARSE stand-in: " + why);
    (void)cudaGetLastError();  // a library status, not a runtime error
    return CUSPARSE_STATUS_INVALID_VALUE;
}

// The documented requirements of a CSR descriptor, and its arrays on the device.
std::string csr_problem(const cusparseSpMatDescr& a, bool arrays_needed) {
    if (a.rows < 0 || a.cols < 0 || a.nnz < 0) return "negative CSR sizes";
    if (a.offset_type == CUSPARSE_INDEX_16U || a.column_type == CUSPARSE_INDEX_16U) return "16-bit CSR indices";
    if (a.type != CUDA_R_32F && a.type != CUDA_R_64F) return "a value type the stand-in does not take";
    if (!tessel::sim::is_device_range(a.offsets, (a.rows + 1) * index_bytes(a.offset_type)))
        return "CSR row offsets are not device memory";
    if (arrays_needed && (!tessel::sim::is_device_range(a.columns, a.nnz * index_bytes(a.column_type)) ||
                          !tessel::sim::is_device_range(a.values, a.nnz * value_bytes(a.type))))
        return "CSR column indices or values are not device memory";
    return {};
}

}  // namespace tessel::sim

using tessel::sim::csr_problem;
using tessel::sim::cusparse_invalid;

namespace {

// A tessel CSR copy of a descriptor's device arrays (the simulator's device memory is host memory).
template <typename V, typename I>
tessel::Csr<V, I> to_csr(const cusparseSpMatDescr& a) {
    std::vector<size_type> row_ptr(std::size_t(a.rows) + 1);
    for (std::int64_t i = 0; i <= a.rows; ++i) row_ptr[std::size_t(i)] = read_index(a.offsets, a.offset_type, i);
    std::vector<I> col(std::size_t(a.nnz));
    for (std::int64_t e = 0; e < a.nnz; ++e) col[std::size_t(e)] = I(read_index(a.columns, a.column_type, e));
    std::vector<V> val(static_cast<const V*>(a.values), static_cast<const V*>(a.values) + a.nnz);
    return tessel::Csr<V, I>(a.rows, a.cols, std::move(row_ptr), std::move(col), std::move(val), "cusparse operand");
}

std::string spmm_problem(cusparseOperation_t op_a, cusparseOperation_t op_b, const void* alpha, const void* beta,
                         const cusparseSpMatDescr* a, const cusparseDnMatDescr* b, const cusparseDnMatDescr* c,
                         cudaDataType type, cusparseSpMMAlg_t alg) {
    if (a == nullptr || b == nullptr || c == nullptr || alpha == nullptr || beta == nullptr) return "null argument";
    if (op_a != CUSPARSE_OPERATION_NON_TRANSPOSE || op_b != CUSPARSE_OPERATION_NON_TRANSPOSE)
        return "transposed operands (the stand-in takes what tessel uses: none)";
    if (a->rows != c->rows || a->cols != b->rows || b->cols != c->cols)
        return "A is " + std::to_string(a->rows) + "x" + std::to_string(a->cols) + ", B " + std::to_string(b->rows) +
               "x" + std::to_string(b->cols) + ", C " + std::to_string(c->rows) + "x" + std::to_string(c->cols);
    if (a->type != type || b->type != type || c->type != type) return "value and compute types differ";
    if (b->order != c->order) return "B and C in different orders";
    if (alg == CUSPARSE_SPMM_CSR_ALG2 && c->order != CUSPARSE_ORDER_ROW) return "CSR_ALG2 needs row-major B and C";
    if (a->offset_type != a->column_type) return "row offsets and column indices of different widths";
    return csr_problem(*a, true);
}

template <typename V>
void spmm_reference(const cusparseSpMatDescr& a, const cusparseDnMatDescr& b, cusparseDnMatDescr& c, V alpha, V beta) {
    const auto order = b.order == CUSPARSE_ORDER_ROW ? tessel::Layout::row_major : tessel::Layout::col_major;
    tessel::DenseView<const V> bv(static_cast<const V*>(b.values), b.rows, b.cols, order, b.ld);
    tessel::DenseView<V> cv(static_cast<V*>(c.values), c.rows, c.cols, order, c.ld);
    const auto ep = tessel::Epilogue<V>::scaled(alpha, beta);
    if (a.column_type == CUSPARSE_INDEX_64I)
        tessel::reference::spmm(to_csr<V, std::int64_t>(a), bv, cv, ep);
    else
        tessel::reference::spmm(to_csr<V, std::int32_t>(a), bv, cv, ep);
}

bool dense_on_device(const cusparseDnMatDescr& d) {
    const std::int64_t outer = d.order == CUSPARSE_ORDER_ROW ? d.rows : d.cols;
    const std::int64_t inner = d.order == CUSPARSE_ORDER_ROW ? d.cols : d.rows;
    if (outer == 0 || inner == 0) return true;
    return tessel::sim::is_device_range(d.values, ((outer - 1) * d.ld + inner) * value_bytes(d.type));
}

}  // namespace

const char* cusparseGetErrorName(cusparseStatus_t s) {
    switch (s) {
    case CUSPARSE_STATUS_SUCCESS: return "CUSPARSE_STATUS_SUCCESS";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "CUSPARSE_STATUS_NOT_INITIALIZED";
    case CUSPARSE_STATUS_INVALID_VALUE: return "CUSPARSE_STATUS_INVALID_VALUE";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "CUSPARSE_STATUS_NOT_SUPPORTED";
    default: return "CUSPARSE_STATUS_INTERNAL_ERROR";
    }
}
const char* cusparseGetErrorString(cusparseStatus_t s) {
    switch (s) {
    case CUSPARSE_STATUS_SUCCESS: return "success";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "initialization error";
    case CUSPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "operation not supported";
    default: return "internal error";
    }
}

cusparseStatus_t cusparseCreate(cusparseHandle_t* handle) {
    if (handle == nullptr) return cusparse_invalid("cusparseCreate: null handle pointer");
    *handle = new cusparseContext;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseDestroy(cusparseHandle_t handle) {
    delete handle;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t stream) {
    if (handle == nullptr) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!tessel::sim::valid_stream(stream)) return cusparse_invalid("cusparseSetStream: not a live stream");
    handle->stream = stream;
    return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t* descr, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                   void* offsets, void* columns, void* values, cusparseIndexType_t offset_type,
                                   cusparseIndexType_t column_type, cusparseIndexBase_t base, cudaDataType type) {
    if (descr == nullptr) return cusparse_invalid("cusparseCreateCsr: null descriptor pointer");
    if (rows < 0 || cols < 0 || nnz < 0) return cusparse_invalid("cusparseCreateCsr: negative sizes");
    if (base != CUSPARSE_INDEX_BASE_ZERO) return cusparse_invalid("cusparseCreateCsr: tessel's CSR is zero-based");
    if ((nnz > 0 && (columns == nullptr || values == nullptr)) || (rows > 0 && offsets == nullptr))
        return cusparse_invalid("cusparseCreateCsr: null arrays for a non-empty matrix");
    *descr = new cusparseSpMatDescr{rows, cols, nnz, offsets, columns, values, offset_type, column_type, type};
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t* descr, std::int64_t rows, std::int64_t cols,
                                        std::int64_t nnz, const void* offsets, const void* columns, const void* values,
                                        cusparseIndexType_t offset_type, cusparseIndexType_t column_type,
                                        cusparseIndexBase_t base, cudaDataType type) {
    cusparseSpMatDescr_t d = nullptr;
    const cusparseStatus_t s = cusparseCreateCsr(&d, rows, cols, nnz, const_cast<void*>(offsets), const_cast<void*>(columns),
                                                 const_cast<void*>(values), offset_type, column_type, base, type);
    *descr = d;
    return s;
}
cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t descr) {
    delete descr;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t d, std::int64_t* rows, std::int64_t* cols, std::int64_t* nnz) {
    if (d == nullptr || rows == nullptr || cols == nullptr || nnz == nullptr) return cusparse_invalid("cusparseSpMatGetSize: null argument");
    *rows = d->rows;
    *cols = d->cols;
    *nnz = d->nnz;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t d, void* offsets, void* columns, void* values) {
    if (d == nullptr || offsets == nullptr) return cusparse_invalid("cusparseCsrSetPointers: null descriptor or offsets");
    d->offsets = offsets;
    d->columns = columns;
    d->values = values;
    return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t* descr, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                     void* values, cudaDataType type, cusparseOrder_t order) {
    if (descr == nullptr) return cusparse_invalid("cusparseCreateDnMat: null descriptor pointer");
    if (rows < 0 || cols < 0 || ld < (order == CUSPARSE_ORDER_ROW ? cols : rows))
        return cusparse_invalid("cusparseCreateDnMat: a leading dimension of " + std::to_string(ld) + " for " + std::to_string(rows) +
                       "x" + std::to_string(cols) + (order == CUSPARSE_ORDER_ROW ? " row-major" : " column-major"));
    *descr = new cusparseDnMatDescr{rows, cols, ld, values, type, order};
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t* descr, std::int64_t rows, std::int64_t cols,
                                          std::int64_t ld, const void* values, cudaDataType type, cusparseOrder_t order) {
    cusparseDnMatDescr_t d = nullptr;
    const cusparseStatus_t s = cusparseCreateDnMat(&d, rows, cols, ld, const_cast<void*>(values), type, order);
    *descr = d;
    return s;
}
cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t descr) {
    delete descr;
    return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t op_a, cusparseOperation_t op_b,
                                         const void* alpha, cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                                         const void* beta, cusparseDnMatDescr_t c, cudaDataType type,
                                         cusparseSpMMAlg_t alg, std::size_t* buffer_size) {
    if (handle == nullptr) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (buffer_size == nullptr) return cusparse_invalid("cusparseSpMM_bufferSize: null size pointer");
    if (const std::string p = spmm_problem(op_a, op_b, alpha, beta, a, b, c, type, alg); !p.empty())
        return cusparse_invalid("cusparseSpMM_bufferSize: " + p);
    *buffer_size = 256;  // asked for, so that the caller's workspace path runs
    return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t op_a, cusparseOperation_t op_b,
                              const void* alpha, cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                              const void* beta, cusparseDnMatDescr_t c, cudaDataType type, cusparseSpMMAlg_t alg,
                              void* buffer) {
    if (handle == nullptr) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (const std::string p = spmm_problem(op_a, op_b, alpha, beta, a, b, c, type, alg); !p.empty())
        return cusparse_invalid("cusparseSpMM: " + p);
    if (!tessel::sim::is_device_range(buffer, 256)) return cusparse_invalid("cusparseSpMM: the workspace is not 256 bytes of device memory");
    if (!dense_on_device(*b) || !dense_on_device(*c)) return cusparse_invalid("cusparseSpMM: B or C is not device memory");
    tessel::sim::note_stand_in("cusparseSpMM", "tessel::reference::spmm");
    // Queued on the handle's stream like a kernel: the descriptors and scalars as they are now
    // (host memory, read by the call), the arrays they point to when it runs.
    const cusparseSpMatDescr sa = *a;
    const cusparseDnMatDescr sb = *b;
    cusparseDnMatDescr sc = *c;
    if (type == CUDA_R_64F) {
        const double al = *static_cast<const double*>(alpha), be = *static_cast<const double*>(beta);
        tessel::sim::enqueue(handle->stream, [=]() mutable { spmm_reference<double>(sa, sb, sc, al, be); });
    } else {
        const float al = *static_cast<const float*>(alpha), be = *static_cast<const float*>(beta);
        tessel::sim::enqueue(handle->stream, [=]() mutable { spmm_reference<float>(sa, sb, sc, al, be); });
    }
    return CUSPARSE_STATUS_SUCCESS;
}
