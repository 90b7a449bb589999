// cuBLAS stand-in: GEMM checked as cuBLAS documents it (sizes, leading dimensions, handle,
// device operands) and computed with the reference triple loop, column-major.
#include <cublas_v2.h>

#include <mutex>
#include <set>
#include <string>

#include "core/cuda/sim/fault.hpp"
#include "core/cuda/sim/stand_in_support.hpp"
#include "core/cuda/sim/streams.hpp"

struct cublasContext {
    cudaStream_t stream = nullptr;
};

namespace {

std::mutex handle_mutex;
std::set<const cublasContext*> handles;

bool live(const cublasContext* h) {
    std::lock_guard lock(handle_mutex);
    return handles.count(h) != 0;
}

cublasStatus_t invalid(const std::string& why) {
    tessel::sim::fail(cudaErrorInvalidValue, "cuBLAS stand-in: " + why);
    (void)cudaGetLastError();  // a library status, not a runtime error
    return CUBLAS_STATUS_INVALID_VALUE;
}

template <typename T>
cublasStatus_t gemm(const char* name, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta, T* c, int ldc) {
    if (!live(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0) return invalid(std::string(name) + ": negative size");
    const int a_rows = ta == CUBLAS_OP_N ? m : k, b_rows = tb == CUBLAS_OP_N ? k : n;
    if (lda < std::max(1, a_rows) || ldb < std::max(1, b_rows) || ldc < std::max(1, m))
        return invalid(std::string(name) + ": a leading dimension below its matrix's rows");
    if (alpha == nullptr || beta == nullptr) return invalid(std::string(name) + ": null alpha or beta");
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    const int a_cols = ta == CUBLAS_OP_N ? k : m, b_cols = tb == CUBLAS_OP_N ? n : k;
    const auto span = [](int ld, int cols) { return (unsigned long long)ld * (cols - 1) * sizeof(T) + sizeof(T); };
    if ((k > 0 && (!tessel::sim::is_device_range(a, span(lda, a_cols)) || !tessel::sim::is_device_range(b, span(ldb, b_cols)))) ||
        !tessel::sim::is_device_range(c, span(ldc, n)))
        return invalid(std::string(name) + ": an operand is not (wholly) device memory");
    tessel::sim::note_stand_in(name, "reference triple loop");
    tessel::sim::drain(h->stream);  // the call runs after the work queued before it
    const auto at = [&](int i, int l) { return ta == CUBLAS_OP_N ? a[i + std::size_t(l) * lda] : a[l + std::size_t(i) * lda]; };
    const auto bt = [&](int l, int j) { return tb == CUBLAS_OP_N ? b[l + std::size_t(j) * ldb] : b[j + std::size_t(l) * ldb]; };
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            T sum = 0;
            for (int l = 0; l < k; ++l) sum += at(i, l) * bt(l, j);
            T& out = c[i + std::size_t(j) * ldc];
            out = *alpha * sum + (*beta == T(0) ? T(0) : *beta * out);  // beta = 0: C is not read
        }
    return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

const char* cublasGetStatusName(cublasStatus_t s) {
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_INTERNAL_ERROR";
    }
}
const char* cublasGetStatusString(cublasStatus_t s) {
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    default: return "an internal operation failed";
    }
}

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
    if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
    *handle = new cublasContext;
    std::lock_guard lock(handle_mutex);
    handles.insert(*handle);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy(cublasHandle_t handle) {
    {
        std::lock_guard lock(handle_mutex);
        if (!handles.erase(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    }
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
    if (!live(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!tessel::sim::valid_stream(stream)) return invalid("cublasSetStream: not a live stream");
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float* alpha, const float* a, int lda, const float* b, int ldb, const float* beta,
                           float* c, int ldc) {
    return gemm("cublasSgemm", h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t cublasDgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const double* alpha, const double* a, int lda, const double* b, int ldb,
                           const double* beta, double* c, int ldc) {
    return gemm("cublasDgemm", h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
