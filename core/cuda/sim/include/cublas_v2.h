// tessel's CUDA simulator: the cuBLAS calls tessel makes (dense GEMM, batched GEMM), answered by a stand-in
// (core/cuda/sim/stand_ins/cublas_stand_in.cpp) that checks the arguments as cuBLAS documents them and
// computes with the reference triple loop.
#pragma once

#include <cuda_runtime_api.h>

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
} cublasStatus_t;

typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;

struct cublasContext;
typedef cublasContext* cublasHandle_t;

const char* cublasGetStatusName(cublasStatus_t status);
const char* cublasGetStatusString(cublasStatus_t status);
cublasStatus_t cublasCreate(cublasHandle_t* handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                           int k, const float* alpha, const float* a, int lda, const float* b, int ldb,
                           const float* beta, float* c, int ldc);
cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                           int k, const double* alpha, const double* a, int lda, const double* b, int ldb,
                           const double* beta, double* c, int ldc);
cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                  int n, int k, const float* alpha, const float* const Aarray[], int lda,
                                  const float* const Barray[], int ldb, const float* beta, float* const Carray[],
                                  int ldc, int batchCount);
cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                  int n, int k, const double* alpha, const double* const Aarray[], int lda,
                                  const double* const Barray[], int ldb, const double* beta, double* const Carray[],
                                  int ldc, int batchCount);
