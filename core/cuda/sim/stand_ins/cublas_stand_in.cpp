// cuBLAS stand-in: GEMM and batched GEMM checked as cuBLAS documents them (sizes, leading
// dimensions, handle, device operands; batched: the pointer arrays in device memory, no two
// problems writing the same C) and computed with the reference triple loop, column-major, as
// work queued on the handle's stream (run when something waits for it, like a kernel: a copy
// that reads C without waiting for the GEMM sees C as it was). alpha and beta are read at the
// call (host pointers, as cuBLAS's default pointer mode), the batch's arrays when it runs.
#include <cublas_v2.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>
#include <set>
#include <string>

#include "core/cuda/sim/runtime/fault.hpp"
#include "core/cuda/sim/runtime/streams.hpp"
#include "core/cuda/sim/stand_ins/stand_in_support.hpp"

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

// The checks of one GEMM's scalars, sizes and leading dimensions; empty when they pass.
std::string size_error(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void* alpha, int lda,
                       int ldb, const void* beta, int ldc) {
    if (m < 0 || n < 0 || k < 0) return "negative size";
    const int a_rows = ta == CUBLAS_OP_N ? m : k, b_rows = tb == CUBLAS_OP_N ? k : n;
    if (lda < std::max(1, a_rows) || ldb < std::max(1, b_rows) || ldc < std::max(1, m))
        return "a leading dimension below its matrix's rows";
    if (alpha == nullptr || beta == nullptr) return "null alpha or beta";
    return "";
}

// Whether A, B and C of one GEMM lie wholly in device memory.
template <typename T>
bool on_device(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const T* a, int lda, const T* b,
               int ldb, const T* c, int ldc) {
    const int a_cols = ta == CUBLAS_OP_N ? k : m, b_cols = tb == CUBLAS_OP_N ? n : k;
    const auto span = [](int ld, int cols) { return (unsigned long long)ld * (cols - 1) * sizeof(T) + sizeof(T); };
    return (k == 0 || (tessel::sim::is_device_range(a, span(lda, a_cols)) && tessel::sim::is_device_range(b, span(ldb, b_cols)))) &&
           tessel::sim::is_device_range(c, span(ldc, n));
}

// C := alpha·op(A)·op(B) + beta·C by the reference triple loop (checked before).
template <typename T>
void reference_gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const T* alpha, const T* a,
                    int lda, const T* b, int ldb, const T* beta, T* c, int ldc) {
    const auto at = [&](int i, int l) { return ta == CUBLAS_OP_N ? a[i + std::size_t(l) * lda] : a[l + std::size_t(i) * lda]; };
    const auto bt = [&](int l, int j) { return tb == CUBLAS_OP_N ? b[l + std::size_t(j) * ldb] : b[j + std::size_t(l) * ldb]; };
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            T sum = 0;
            for (int l = 0; l < k; ++l) sum += at(i, l) * bt(l, j);
            T& out = c[i + std::size_t(j) * ldc];
            out = *alpha * sum + (*beta == T(0) ? T(0) : *beta * out);  // beta = 0: C is not read
        }
}

template <typename T>
cublasStatus_t gemm(const char* name, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta, T* c, int ldc) {
    if (!live(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (const std::string e = size_error(ta, tb, m, n, k, alpha, lda, ldb, beta, ldc); !e.empty())
        return invalid(std::string(name) + ": " + e);
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (!on_device(ta, tb, m, n, k, a, lda, b, ldb, c, ldc))
        return invalid(std::string(name) + ": an operand is not (wholly) device memory");
    tessel::sim::note_stand_in(name, "reference triple loop");
    const T alpha_value = *alpha, beta_value = *beta;
    tessel::sim::enqueue(h->stream, [=] {
        reference_gemm(ta, tb, m, n, k, &alpha_value, a, lda, b, ldb, &beta_value, c, ldc);
    });
    return CUBLAS_STATUS_SUCCESS;
}

// Batched: the pointer arrays must be device memory (cuBLAS reads them on the device), every
// problem's operands too, and no two problems may write overlapping C (they run concurrently
// on a GPU, so such a batch races).
template <typename T>
cublasStatus_t gemm_batched(const char* name, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const T* alpha, const T* const a[], int lda, const T* const b[], int ldb,
                            const T* beta, T* const c[], int ldc, int count) {
    if (!live(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (const std::string e = size_error(ta, tb, m, n, k, alpha, lda, ldb, beta, ldc); !e.empty())
        return invalid(std::string(name) + ": " + e);
    if (count < 0) return invalid(std::string(name) + ": negative batchCount");
    if (m == 0 || n == 0 || count == 0) return CUBLAS_STATUS_SUCCESS;
    const auto bytes = (unsigned long long)count * sizeof(void*);
    if (!tessel::sim::is_device_range(a, bytes) || !tessel::sim::is_device_range(b, bytes) ||
        !tessel::sim::is_device_range(c, bytes))
        return invalid(std::string(name) + ": a pointer array is not (wholly) device memory");
    tessel::sim::note_stand_in(name, "reference triple loop per problem");
    // Checked now, so that a bad batch is refused by the call: the arrays may have been written
    // by work queued before.
    tessel::sim::drain(h->stream);
    std::vector<std::pair<const T*, const T*>> written;  // [first, last] value of each C
    for (int p = 0; p < count; ++p) {
        if (!on_device(ta, tb, m, n, k, a[p], lda, b[p], ldb, c[p], ldc))
            return invalid(std::string(name) + ": an operand of problem " + std::to_string(p) +
                           " is not (wholly) device memory");
        written.emplace_back(c[p], c[p] + std::size_t(ldc) * (n - 1) + (m - 1));
    }
    std::sort(written.begin(), written.end());
    for (std::size_t p = 1; p < written.size(); ++p)
        if (written[p].first <= written[p - 1].second)
            return invalid(std::string(name) + ": two problems of the batch write overlapping C");
    const T alpha_value = *alpha, beta_value = *beta;
    tessel::sim::enqueue(h->stream, [=] {
        for (int p = 0; p < count; ++p)
            reference_gemm(ta, tb, m, n, k, &alpha_value, a[p], lda, b[p], ldb, &beta_value, c[p], ldc);
    });
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
cublasStatus_t cublasSgemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                  const float* alpha, const float* const a[], int lda, const float* const b[], int ldb,
                                  const float* beta, float* const c[], int ldc, int count) {
    return gemm_batched("cublasSgemmBatched", h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, count);
}
cublasStatus_t cublasDgemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                  const double* alpha, const double* const a[], int lda, const double* const b[],
                                  int ldb, const double* beta, double* const c[], int ldc, int count) {
    return gemm_batched("cublasDgemmBatched", h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, count);
}
