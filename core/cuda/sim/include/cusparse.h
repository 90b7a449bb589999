// tessel's CUDA simulator: the cuSPARSE calls tessel makes (generic SpMM and SpGEMM on CSR),
// answered by stand-ins (core/cuda/sim/stand_ins/cusparse_stand_in.cpp) that check their arguments as
// cuSPARSE's documentation states them and compute with tessel's reference kernels.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

typedef enum {
    CUSPARSE_STATUS_SUCCESS = 0,
    CUSPARSE_STATUS_NOT_INITIALIZED = 1,
    CUSPARSE_STATUS_ALLOC_FAILED = 2,
    CUSPARSE_STATUS_INVALID_VALUE = 3,
    CUSPARSE_STATUS_ARCH_MISMATCH = 4,
    CUSPARSE_STATUS_EXECUTION_FAILED = 6,
    CUSPARSE_STATUS_INTERNAL_ERROR = 7,
    CUSPARSE_STATUS_NOT_SUPPORTED = 10,
    CUSPARSE_STATUS_INSUFFICIENT_RESOURCES = 11,
} cusparseStatus_t;

typedef enum { CUSPARSE_OPERATION_NON_TRANSPOSE = 0, CUSPARSE_OPERATION_TRANSPOSE = 1 } cusparseOperation_t;
typedef enum { CUSPARSE_INDEX_16U = 1, CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 } cusparseIndexType_t;
typedef enum { CUSPARSE_INDEX_BASE_ZERO = 0, CUSPARSE_INDEX_BASE_ONE = 1 } cusparseIndexBase_t;
typedef enum { CUSPARSE_ORDER_COL = 1, CUSPARSE_ORDER_ROW = 2 } cusparseOrder_t;
typedef enum {
    CUSPARSE_SPMM_ALG_DEFAULT = 0,
    CUSPARSE_SPMM_CSR_ALG1 = 4,
    CUSPARSE_SPMM_CSR_ALG2 = 6,
    CUSPARSE_SPMM_CSR_ALG3 = 12,
} cusparseSpMMAlg_t;
typedef enum { CUSPARSE_SPGEMM_DEFAULT = 0 } cusparseSpGEMMAlg_t;

struct cusparseContext;
struct cusparseSpMatDescr;
struct cusparseDnMatDescr;
struct cusparseSpGEMMDescr;
typedef cusparseContext* cusparseHandle_t;
typedef cusparseSpMatDescr* cusparseSpMatDescr_t;
typedef const cusparseSpMatDescr* cusparseConstSpMatDescr_t;
typedef cusparseDnMatDescr* cusparseDnMatDescr_t;
typedef const cusparseDnMatDescr* cusparseConstDnMatDescr_t;
typedef cusparseSpGEMMDescr* cusparseSpGEMMDescr_t;

const char* cusparseGetErrorName(cusparseStatus_t status);
const char* cusparseGetErrorString(cusparseStatus_t status);

cusparseStatus_t cusparseCreate(cusparseHandle_t* handle);
cusparseStatus_t cusparseDestroy(cusparseHandle_t handle);
cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t stream);

cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t* descr, std::int64_t rows, std::int64_t cols,
                                   std::int64_t nnz, void* row_offsets, void* col_ind, void* values,
                                   cusparseIndexType_t offset_type, cusparseIndexType_t col_type,
                                   cusparseIndexBase_t base, cudaDataType value_type);
cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t* descr, std::int64_t rows, std::int64_t cols,
                                        std::int64_t nnz, const void* row_offsets, const void* col_ind,
                                        const void* values, cusparseIndexType_t offset_type,
                                        cusparseIndexType_t col_type, cusparseIndexBase_t base,
                                        cudaDataType value_type);
cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t descr);
cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t descr, std::int64_t* rows, std::int64_t* cols,
                                      std::int64_t* nnz);
cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t descr, void* row_offsets, void* col_ind, void* values);

cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t* descr, std::int64_t rows, std::int64_t cols,
                                     std::int64_t ld, void* values, cudaDataType value_type, cusparseOrder_t order);
cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t* descr, std::int64_t rows, std::int64_t cols,
                                          std::int64_t ld, const void* values, cudaDataType value_type,
                                          cusparseOrder_t order);
cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t descr);

cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t op_a, cusparseOperation_t op_b,
                                         const void* alpha, cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                                         const void* beta, cusparseDnMatDescr_t c, cudaDataType compute_type,
                                         cusparseSpMMAlg_t alg, std::size_t* buffer_size);
cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t op_a, cusparseOperation_t op_b,
                              const void* alpha, cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                              const void* beta, cusparseDnMatDescr_t c, cudaDataType compute_type,
                              cusparseSpMMAlg_t alg, void* external_buffer);

cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t* descr);
cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr);
cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t handle, cusparseOperation_t op_a,
                                               cusparseOperation_t op_b, const void* alpha,
                                               cusparseConstSpMatDescr_t a, cusparseConstSpMatDescr_t b,
                                               const void* beta, cusparseSpMatDescr_t c, cudaDataType compute_type,
                                               cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t descr,
                                               std::size_t* buffer_size1, void* external_buffer1);
cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t handle, cusparseOperation_t op_a, cusparseOperation_t op_b,
                                        const void* alpha, cusparseConstSpMatDescr_t a, cusparseConstSpMatDescr_t b,
                                        const void* beta, cusparseSpMatDescr_t c, cudaDataType compute_type,
                                        cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t descr,
                                        std::size_t* buffer_size2, void* external_buffer2);
cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t handle, cusparseOperation_t op_a, cusparseOperation_t op_b,
                                     const void* alpha, cusparseConstSpMatDescr_t a, cusparseConstSpMatDescr_t b,
                                     const void* beta, cusparseSpMatDescr_t c, cudaDataType compute_type,
                                     cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t descr);
