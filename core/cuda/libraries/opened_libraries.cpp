// cuBLAS and cuSPARSE opened at their first call (dlopen), not linked: a process that never
// multiplies through them (every cpu run; xct, and spdnn's own kernels, on cuda) does not load
// them. Linked, libcublasLt alone cost every process 212 MiB of memory and 0.11 s at its start
// (an empty program linked with it, vm-epyc), every rank of a cpu run included. Each function
// below is the library's own symbol as its header declares it (a signature that differs does
// not compile); it forwards to the library's definition, found by dlsym at the first call.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

// The forwarders stay inside the program or library that holds them (hidden): exported from a
// shared library, such as the Python module, they would stand in for the libraries' names for
// other code loaded beside it.
#pragma GCC visibility push(hidden)
#include <cublas_v2.h>
#include <cusparse.h>
#pragma GCC visibility pop

#include <string>

#include "core/error.hpp"

namespace tessel::cuda::detail {
namespace {

#define TESSEL_STRINGIFY_(x) #x
#define TESSEL_STRINGIFY(x) TESSEL_STRINGIFY_(x)

void* open_library(const char* what, const char* soname) {
    void* library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        const char* why = dlerror();
        TESSEL_THROW(CudaError, std::string(what) + ": " + soname + " could not be opened (" +
                                    (why ? why : "no reason given") +
                                    "): install the CUDA toolkit's library or run with --backend cpu");
    }
    return library;
}

// The sonames of the toolkit this build compiled against, opened once.
void* cublas() {
    static void* const library = open_library("cuBLAS", "libcublas.so." TESSEL_STRINGIFY(CUBLAS_VER_MAJOR));
    return library;
}
void* cusparse() {
    static void* const library = open_library("cuSPARSE", "libcusparse.so." TESSEL_STRINGIFY(CUSPARSE_VER_MAJOR));
    return library;
}

template <typename Function>
Function resolve(void* library, const char* name) {
    void* address = dlsym(library, name);
    if (address == nullptr)
        TESSEL_THROW(CudaError, std::string("the CUDA library has no ") + name + " (another version?)");
    return reinterpret_cast<Function>(address);
}

}  // namespace
}  // namespace tessel::cuda::detail

// The library's definition of `name`, looked up once (each use is its own lambda, so its own static).
#define TESSEL_OPENED(library, name)                                                                \
    ([] {                                                                                           \
        static const auto function =                                                                \
            tessel::cuda::detail::resolve<decltype(&name)>(tessel::cuda::detail::library(), #name); \
        return function;                                                                            \
    }())

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) { return TESSEL_OPENED(cublas, cublasCreate_v2)(handle); }
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) { return TESSEL_OPENED(cublas, cublasDestroy_v2)(handle); }
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
    return TESSEL_OPENED(cublas, cublasSetStream_v2)(handle, streamId);
}
const char* cublasGetStatusName(cublasStatus_t status) { return TESSEL_OPENED(cublas, cublasGetStatusName)(status); }
const char* cublasGetStatusString(cublasStatus_t status) {
    return TESSEL_OPENED(cublas, cublasGetStatusString)(status);
}
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                              const float* beta, float* C, int ldc) {
    return TESSEL_OPENED(cublas, cublasSgemm_v2)(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const double* alpha, const double* A, int lda, const double* B, int ldb,
                              const double* beta, double* C, int ldc) {
    return TESSEL_OPENED(cublas, cublasDgemm_v2)(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                  int n, int k, const float* alpha, const float* const Aarray[], int lda,
                                  const float* const Barray[], int ldb, const float* beta, float* const Carray[],
                                  int ldc, int batchCount) {
    return TESSEL_OPENED(cublas, cublasSgemmBatched)(handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb,
                                                     beta, Carray, ldc, batchCount);
}
cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                  int n, int k, const double* alpha, const double* const Aarray[], int lda,
                                  const double* const Barray[], int ldb, const double* beta, double* const Carray[],
                                  int ldc, int batchCount) {
    return TESSEL_OPENED(cublas, cublasDgemmBatched)(handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb,
                                                     beta, Carray, ldc, batchCount);
}
cusparseStatus_t cusparseCreate(cusparseHandle_t* handle) { return TESSEL_OPENED(cusparse, cusparseCreate)(handle); }
cusparseStatus_t cusparseDestroy(cusparseHandle_t handle) { return TESSEL_OPENED(cusparse, cusparseDestroy)(handle); }
cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t streamId) {
    return TESSEL_OPENED(cusparse, cusparseSetStream)(handle, streamId);
}
const char* cusparseGetErrorName(cusparseStatus_t status) {
    return TESSEL_OPENED(cusparse, cusparseGetErrorName)(status);
}
const char* cusparseGetErrorString(cusparseStatus_t status) {
    return TESSEL_OPENED(cusparse, cusparseGetErrorString)(status);
}
cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                   void* csrRowOffsets, void* csrColInd, void* csrValues,
                                   cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
                                   cusparseIndexBase_t idxBase, cudaDataType valueType) {
    return TESSEL_OPENED(cusparse, cusparseCreateCsr)(spMatDescr, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,
                                                      csrRowOffsetsType, csrColIndType, idxBase, valueType);
}
cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                        const void* csrRowOffsets, const void* csrColInd, const void* csrValues,
                                        cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
                                        cusparseIndexBase_t idxBase, cudaDataType valueType) {
    return TESSEL_OPENED(cusparse, cusparseCreateConstCsr)(spMatDescr, rows, cols, nnz, csrRowOffsets, csrColInd,
                                                           csrValues, csrRowOffsetsType, csrColIndType, idxBase,
                                                           valueType);
}
cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t spMatDescr, void* csrRowOffsets, void* csrColInd,
                                        void* csrValues) {
    return TESSEL_OPENED(cusparse, cusparseCsrSetPointers)(spMatDescr, csrRowOffsets, csrColInd, csrValues);
}
cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols,
                                      int64_t* nnz) {
    return TESSEL_OPENED(cusparse, cusparseSpMatGetSize)(spMatDescr, rows, cols, nnz);
}
cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr) {
    return TESSEL_OPENED(cusparse, cusparseDestroySpMat)(spMatDescr);
}
cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols, int64_t ld,
                                     void* values, cudaDataType valueType, cusparseOrder_t order) {
    return TESSEL_OPENED(cusparse, cusparseCreateDnMat)(dnMatDescr, rows, cols, ld, values, valueType, order);
}
cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols, int64_t ld,
                                          const void* values, cudaDataType valueType, cusparseOrder_t order) {
    return TESSEL_OPENED(cusparse, cusparseCreateConstDnMat)(dnMatDescr, rows, cols, ld, values, valueType, order);
}
cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr) {
    return TESSEL_OPENED(cusparse, cusparseDestroyDnMat)(dnMatDescr);
}
cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                                         const void* alpha, cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnMatDescr_t matB, const void* beta, cusparseDnMatDescr_t matC,
                                         cudaDataType computeType, cusparseSpMMAlg_t alg, size_t* bufferSize) {
    return TESSEL_OPENED(cusparse, cusparseSpMM_bufferSize)(handle, opA, opB, alpha, matA, matB, beta, matC,
                                                            computeType, alg, bufferSize);
}
cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                              const void* alpha, cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                              const void* beta, cusparseDnMatDescr_t matC, cudaDataType computeType,
                              cusparseSpMMAlg_t alg, void* externalBuffer) {
    return TESSEL_OPENED(cusparse, cusparseSpMM)(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg,
                                                 externalBuffer);
}
cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t* descr) {
    return TESSEL_OPENED(cusparse, cusparseSpGEMM_createDescr)(descr);
}
cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr) {
    return TESSEL_OPENED(cusparse, cusparseSpGEMM_destroyDescr)(descr);
}
cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t handle, cusparseOperation_t opA,
                                               cusparseOperation_t opB, const void* alpha,
                                               cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB,
                                               const void* beta, cusparseSpMatDescr_t matC, cudaDataType computeType,
                                               cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr,
                                               size_t* bufferSize1, void* externalBuffer1) {
    return TESSEL_OPENED(cusparse, cusparseSpGEMM_workEstimation)(
        handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, spgemmDescr, bufferSize1, externalBuffer1);
}
cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                                        const void* alpha, cusparseConstSpMatDescr_t matA,
                                        cusparseConstSpMatDescr_t matB, const void* beta, cusparseSpMatDescr_t matC,
                                        cudaDataType computeType, cusparseSpGEMMAlg_t alg,
                                        cusparseSpGEMMDescr_t spgemmDescr, size_t* bufferSize2, void* externalBuffer2) {
    return TESSEL_OPENED(cusparse, cusparseSpGEMM_compute)(handle, opA, opB, alpha, matA, matB, beta, matC, computeType,
                                                           alg, spgemmDescr, bufferSize2, externalBuffer2);
}
cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                                     const void* alpha, cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB,
                                     const void* beta, cusparseSpMatDescr_t matC, cudaDataType computeType,
                                     cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr) {
    return TESSEL_OPENED(cusparse, cusparseSpGEMM_copy)(handle, opA, opB, alpha, matA, matB, beta, matC, computeType,
                                                        alg, spgemmDescr);
}

}  // extern "C"
