// The cuSPARSE baseline: cusparseSpMM on CSR with row-major B and C, then the epilogue.
#include <cusparse.h>

#include <optional>
#include <string>
#include <type_traits>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/kernels/spmm_launch.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/instantiate.hpp"

namespace tessel::cuda {

CusparseHandle::CusparseHandle() { TESSEL_CUSPARSE_CHECK(cusparseCreate(&handle_)); }

CusparseHandle::~CusparseHandle() {
    if (handle_) cusparseDestroy(handle_);
}

namespace {

template <typename V>
constexpr cudaDataType value_data_type() {
    return std::is_same_v<V, float> ? CUDA_R_32F : CUDA_R_64F;
}

// Owners of cuSPARSE descriptors, destroyed on every path out.
struct SpMatDescr {
    cusparseConstSpMatDescr_t descr = nullptr;
    ~SpMatDescr() {
        if (descr) cusparseDestroySpMat(descr);
    }
};
struct ConstDnMatDescr {
    cusparseConstDnMatDescr_t descr = nullptr;
    ~ConstDnMatDescr() {
        if (descr) cusparseDestroyDnMat(descr);
    }
};
struct DnMatDescr {
    cusparseDnMatDescr_t descr = nullptr;
    ~DnMatDescr() {
        if (descr) cusparseDestroyDnMat(descr);
    }
};

}  // namespace

namespace device {

template <typename V, typename I>
void spmm_cusparse(const DeviceCsr<V, I>& a, InputView<V> b, DenseView<V> c,
                   const Epilogue<V>& ep, cudaStream_t stream, const CusparseHandle* handle) {
    detail::check_spmm_shapes("cuda::spmm_cusparse", a.rows(), a.cols(), b, c);
    const size_type m = a.rows(), k = b.cols;
    if (m == 0 || k == 0) return;
    if (a.nnz() == 0) {  // cuSPARSE is not asked about empty matrices: C = epilogue(0)
        detail::launch_epilogue(c.data, m, k, c.ld, ep, true, stream);
        return;
    }
    // cuSPARSE takes row offsets and column indices of one width.
    const void* offsets = nullptr;
    cusparseIndexType_t index_type;
    if constexpr (sizeof(I) == 4) {
        if (a.row_ptr32() == nullptr)
            TESSEL_THROW(CudaError,
                         "cuda::spmm_cusparse: " + std::to_string(a.nnz()) +
                             " nonzeros do not fit the 32-bit row offsets that cuSPARSE needs "
                             "with 32-bit column indices; use 64-bit indices");
        offsets = a.row_ptr32();
        index_type = CUSPARSE_INDEX_32I;
    } else {
        offsets = a.row_ptr();
        index_type = CUSPARSE_INDEX_64I;
    }
    std::optional<CusparseHandle> own;
    if (handle == nullptr) handle = &own.emplace();
    const cusparseHandle_t h = handle->get();
    TESSEL_CUSPARSE_CHECK(cusparseSetStream(h, stream));

    constexpr cudaDataType type = value_data_type<V>();
    SpMatDescr mat_a;
    ConstDnMatDescr mat_b;
    DnMatDescr mat_c;
    TESSEL_CUSPARSE_CHECK(cusparseCreateConstCsr(&mat_a.descr, m, a.cols(), a.nnz(), offsets,
                                                 a.col_idx(), a.values(), index_type, index_type,
                                                 CUSPARSE_INDEX_BASE_ZERO, type));
    TESSEL_CUSPARSE_CHECK(cusparseCreateConstDnMat(&mat_b.descr, b.rows, k, b.ld, b.data, type,
                                                   CUSPARSE_ORDER_ROW));
    TESSEL_CUSPARSE_CHECK(
        cusparseCreateDnMat(&mat_c.descr, m, k, c.ld, c.data, type, CUSPARSE_ORDER_ROW));

    // cuSPARSE applies alpha and beta itself; the pass after it adds the bias and clamps.
    const V alpha = ep.alpha, beta = ep.beta;
    Epilogue<V> after = ep;
    after.alpha = 1;
    after.beta = 0;
    cusparseSpMMAlg_t alg = CUSPARSE_SPMM_CSR_ALG2;  // the row-major algorithm, deterministic
    std::size_t workspace_bytes = 0;
    const cusparseStatus_t status = cusparseSpMM_bufferSize(
        h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
        mat_a.descr, mat_b.descr, &beta, mat_c.descr, type, alg, &workspace_bytes);
    if (status != CUSPARSE_STATUS_SUCCESS) {
        // ALG2 turns some shapes or index types down; the default algorithm takes them all.
        alg = CUSPARSE_SPMM_ALG_DEFAULT;
        TESSEL_CUSPARSE_CHECK(cusparseSpMM_bufferSize(
            h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
            mat_a.descr, mat_b.descr, &beta, mat_c.descr, type, alg, &workspace_bytes));
    }
    detail::StreamScratch workspace(workspace_bytes, stream);
    cuda::count_library_launch();
    TESSEL_CUSPARSE_CHECK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_a.descr,
                                       mat_b.descr, &beta, mat_c.descr, type, alg,
                                       workspace.get()));
    detail::launch_epilogue(c.data, m, k, c.ld, after, false, stream);
}

}  // namespace device

#define TESSEL_INSTANTIATE(V, I)                                                            \
    template void device::spmm_cusparse(const DeviceCsr<V, I>&, DenseView<const V>,         \
                                        DenseView<V>, const Epilogue<V>&, cudaStream_t,     \
                                        const CusparseHandle*);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda
