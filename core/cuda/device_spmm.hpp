// Device-resident SpMM for applications: owning device buffers, CSR and tiled ELL uploaded
// once, C := epilogue(A·B) on device pointers with an optional stream, and event timing.
//
// Only in builds with the CUDA backend (tessel_core then defines TESSEL_HAVE_CUDA). Every
// call reports failures as tessel::CudaError (core/cuda/cuda_check.hpp). Dense operands are
// DenseView objects whose `data` is a device pointer; they must be row-major, any leading
// dimension, and B must not overlap C. Kernels are enqueued on `stream` and return without
// waiting for it.
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/cuda/device_spmm.hpp needs a build with the CUDA backend (TESSEL_HAVE_CUDA)"
#endif

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/cuda/cuda_check.hpp"
#include "core/dense.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/types.hpp"

namespace tessel::cuda {

/// `count` elements of T in device memory (cudaMalloc), freed on destruction; move-only.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    /// Uninitialised storage for `count` elements. Throws CudaError when the device is full.
    explicit DeviceBuffer(size_type count) : count_(count) {
        TESSEL_ENSURE_DIMS(count >= 0, "device buffer: negative size");
        if (count > 0) {
            void* p = nullptr;
            TESSEL_CUDA_CHECK(cudaMalloc(&p, bytes()));
            data_ = static_cast<T*>(p);
        }
    }
    /// A device copy of host[0 .. count).
    DeviceBuffer(const T* host, size_type count, cudaStream_t stream = nullptr)
        : DeviceBuffer(count) {
        upload(host, count, stream);
    }
    ~DeviceBuffer() {
        if (data_) cudaFree(data_);  // never throws from a destructor
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            if (data_) cudaFree(data_);
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    size_type size() const { return count_; }
    std::size_t bytes() const { return static_cast<std::size_t>(count_) * sizeof(T); }
    bool empty() const { return count_ == 0; }

    /// Copies host[0 .. count) to elements offset .. offset+count-1, ordered on `stream`.
    /// Pageable host memory may be reused on return; pinned memory must live until the
    /// stream reaches the copy. Throws DimensionMismatch when it does not fit.
    void upload(const T* host, size_type count, cudaStream_t stream = nullptr,
                size_type offset = 0) {
        TESSEL_ENSURE_DIMS(offset >= 0 && count >= 0 && offset + count <= count_,
                           "device buffer upload: " + std::to_string(count) + " elements at " +
                               std::to_string(offset) + " into " + std::to_string(count_));
        if (count == 0) return;
        TESSEL_CUDA_CHECK(cudaMemcpyAsync(data_ + offset, host, count * sizeof(T),
                                          cudaMemcpyHostToDevice, stream));
    }
    /// Copies elements offset .. offset+count-1 to host[0 .. count) and waits for `stream`.
    void download(T* host, size_type count, cudaStream_t stream = nullptr,
                  size_type offset = 0) const {
        TESSEL_ENSURE_DIMS(offset >= 0 && count >= 0 && offset + count <= count_,
                           "device buffer download: " + std::to_string(count) +
                               " elements at " + std::to_string(offset) + " from " +
                               std::to_string(count_));
        if (count == 0) return;
        TESSEL_CUDA_CHECK(cudaMemcpyAsync(host, data_ + offset, count * sizeof(T),
                                          cudaMemcpyDeviceToHost, stream));
        TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    /// Sets every byte to zero, ordered on `stream`.
    void fill_zero(cudaStream_t stream = nullptr) {
        if (count_ > 0) TESSEL_CUDA_CHECK(cudaMemsetAsync(data_, 0, bytes(), stream));
    }

private:
    T* data_ = nullptr;
    size_type count_ = 0;
};

/// A row-major rows x cols dense matrix in device memory with leading dimension ld >= cols.
template <typename ValueType>
class DeviceDense {
public:
    DeviceDense() = default;
    /// Uninitialised; ld < 0 means ld = cols.
    DeviceDense(size_type rows, size_type cols, size_type ld = -1)
        : rows_(rows), cols_(cols), ld_(ld >= 0 ? ld : cols), storage_(rows * ld_) {
        TESSEL_ENSURE_DIMS(rows >= 0 && cols >= 0 && ld_ >= cols,
                           "device dense: leading dimension " + std::to_string(ld_) +
                               " smaller than " + std::to_string(cols));
    }
    /// A device copy of a row-major host matrix (stored with ld = cols).
    explicit DeviceDense(DenseView<const ValueType> host, cudaStream_t stream = nullptr)
        : DeviceDense(host.rows, host.cols) {
        upload(host, stream);
    }

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type ld() const { return ld_; }
    ValueType* data() { return storage_.data(); }
    const ValueType* data() const { return storage_.data(); }
    /// Views over the device memory, for the device:: kernels.
    DenseView<ValueType> view() { return {storage_.data(), rows_, cols_, Layout::row_major, ld_}; }
    DenseView<const ValueType> view() const {
        return {storage_.data(), rows_, cols_, Layout::row_major, ld_};
    }

    /// Copies a row-major host matrix of the same shape (any ld), ordered on `stream`; the
    /// same lifetime rule as DeviceBuffer::upload. Throws DimensionMismatch.
    void upload(DenseView<const ValueType> host, cudaStream_t stream = nullptr) {
        check_host(host.rows, host.cols, host.layout, "upload");
        if (rows_ == 0 || cols_ == 0) return;
        TESSEL_CUDA_CHECK(cudaMemcpy2DAsync(storage_.data(), ld_ * sizeof(ValueType), host.data,
                                            host.ld * sizeof(ValueType),
                                            cols_ * sizeof(ValueType), rows_,
                                            cudaMemcpyHostToDevice, stream));
    }
    /// Copies into a row-major host matrix of the same shape (any ld) and waits for `stream`.
    void download(DenseView<ValueType> host, cudaStream_t stream = nullptr) const {
        check_host(host.rows, host.cols, host.layout, "download");
        if (rows_ == 0 || cols_ == 0) return;
        TESSEL_CUDA_CHECK(cudaMemcpy2DAsync(host.data, host.ld * sizeof(ValueType),
                                            storage_.data(), ld_ * sizeof(ValueType),
                                            cols_ * sizeof(ValueType), rows_,
                                            cudaMemcpyDeviceToHost, stream));
        TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    void fill_zero(cudaStream_t stream = nullptr) { storage_.fill_zero(stream); }

private:
    void check_host(size_type rows, size_type cols, Layout layout, const char* what) const {
        TESSEL_ENSURE_DIMS(rows == rows_ && cols == cols_ && layout == Layout::row_major,
                           std::string("device dense ") + what + ": host matrix is " +
                               std::to_string(rows) + "x" + std::to_string(cols) +
                               (layout == Layout::row_major ? "" : " column-major") +
                               ", device matrix is " + std::to_string(rows_) + "x" +
                               std::to_string(cols_) + " row-major");
    }

    size_type rows_ = 0;
    size_type cols_ = 0;
    size_type ld_ = 0;
    DeviceBuffer<ValueType> storage_;
};

/// A CSR matrix uploaded once: 64-bit row offsets, IndexType columns, values. With 32-bit
/// column indices it also keeps 32-bit row offsets for cuSPARSE when nnz fits in int32.
template <typename ValueType, typename IndexType>
class DeviceCsr {
public:
    DeviceCsr() = default;
    /// Uploads `host` (ordered on `stream`; the host matrix may change once this returns).
    explicit DeviceCsr(const Csr<ValueType, IndexType>& host, cudaStream_t stream = nullptr);

    /// New values for the same pattern. Throws DimensionMismatch when nnz differs.
    void update_values(const Csr<ValueType, IndexType>& host, cudaStream_t stream = nullptr);

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type nnz() const { return nnz_; }
    double average_row_length() const { return rows_ ? double(nnz_) / double(rows_) : 0.0; }
    const size_type* row_ptr() const { return row_ptr_.data(); }
    const IndexType* col_idx() const { return col_idx_.data(); }
    const ValueType* values() const { return values_.data(); }
    /// 32-bit copy of row_ptr; nullptr for 64-bit IndexType or when nnz exceeds int32.
    const std::int32_t* row_ptr32() const { return row_ptr32_.empty() ? nullptr : row_ptr32_.data(); }

private:
    size_type rows_ = 0;
    size_type cols_ = 0;
    size_type nnz_ = 0;
    DeviceBuffer<size_type> row_ptr_;
    DeviceBuffer<IndexType> col_idx_;
    DeviceBuffer<ValueType> values_;
    DeviceBuffer<std::int32_t> row_ptr32_;
};

/// A tiled ELL matrix (core/formats/tiled_ell.hpp) uploaded once.
template <typename ValueType, typename IndexType>
class DeviceTiledEll {
public:
    DeviceTiledEll() = default;
    explicit DeviceTiledEll(const TiledEll<ValueType, IndexType>& host,
                            cudaStream_t stream = nullptr);

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type nnz() const { return nnz_; }
    size_type block_rows() const { return block_rows_; }
    size_type warps_per_block() const { return block_rows_ / 32; }
    size_type num_blocks() const { return num_blocks_; }
    /// Longest stage (staged entries of B per column); sets the shared memory per block.
    size_type max_stage_entries() const { return max_stage_entries_; }
    const size_type* buffdispl() const { return buffdispl_.data(); }
    const size_type* mapdispl() const { return mapdispl_.data(); }
    const IndexType* map() const { return map_.data(); }
    const size_type* warpdispl() const { return warpdispl_.data(); }
    const std::uint16_t* index() const { return index_.data(); }
    /// The values as ValueType, or null when they are stored in half (half_values()).
    const ValueType* values() const { return values_.data(); }
    const std::uint16_t* half_values() const { return half_values_.data(); }

private:
    size_type rows_ = 0;
    size_type cols_ = 0;
    size_type nnz_ = 0;
    size_type block_rows_ = 0;
    size_type num_blocks_ = 0;
    size_type max_stage_entries_ = 0;
    DeviceBuffer<size_type> buffdispl_;
    DeviceBuffer<size_type> mapdispl_;
    DeviceBuffer<IndexType> map_;
    DeviceBuffer<size_type> warpdispl_;
    DeviceBuffer<std::uint16_t> index_;
    DeviceBuffer<ValueType> values_;
    DeviceBuffer<std::uint16_t> half_values_;
};

/// A cuSPARSE handle (cusparseCreate / cusparseDestroy). Keep one per thread and pass it to
/// device::spmm_cusparse to avoid creating one per call.
class CusparseHandle {
public:
    CusparseHandle();
    ~CusparseHandle();
    CusparseHandle(const CusparseHandle&) = delete;
    CusparseHandle& operator=(const CusparseHandle&) = delete;
    cusparseHandle_t get() const { return handle_; }

private:
    cusparseHandle_t handle_ = nullptr;
};

/// How the tiled ELL kernel runs for a matrix and a column count.
struct TiledEllLaunch {
    /// Columns per register tile of the main launch (4, 8, 16 or 32); smaller than asked
    /// when the staging buffer or the launch bounds do not allow the request.
    int register_factor = 0;
    /// Dynamic shared memory per block of the main launch, bytes.
    size_type shared_bytes = 0;
    /// Threads per block (the tiled ELL block_rows).
    size_type block_threads = 0;
    /// Launches after the main one for the columns left over (halving widths).
    int tail_launches = 0;
};

namespace device {

/// The type of B in the kernels below: a view of const values whose ValueType is deduced from
/// A and C only, so that a DenseView<ValueType> (DeviceDense::view()) converts to it.
template <typename ValueType>
using InputView = DenseView<const std::type_identity_t<ValueType>>;

/// C := epilogue(A·B) with one warp per row: A is m x n, B n x k, C m x k (device memory,
/// row-major). Lanes run over k (groups of lanes split the row when k < 32).
/// Throws DimensionMismatch, CudaError.
template <typename ValueType, typename IndexType>
void spmm_warp_row(const DeviceCsr<ValueType, IndexType>& a, InputView<ValueType> b,
                   DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                   cudaStream_t stream = nullptr);

/// C := epilogue(A·B), merge-based: rows + nonzeros split evenly among warps by merge-path
/// search; rows cut between warps are summed from carry-outs by a fix-up kernel, which then
/// applies the epilogue. Allocates its carry workspace stream-ordered (cudaMallocAsync).
/// Throws DimensionMismatch, CudaError.
template <typename ValueType, typename IndexType>
void spmm_merge(const DeviceCsr<ValueType, IndexType>& a, InputView<ValueType> b,
                DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                cudaStream_t stream = nullptr);

/// C := epilogue(A·B) by cusparseSpMM (CSR, row-major B and C, CUSPARSE_SPMM_CSR_ALG2, or
/// the default algorithm where ALG2 is not supported), then the epilogue as its own kernel.
/// `handle` null: a handle is created for this call. Throws DimensionMismatch, CudaError
/// (also when 32-bit indices are asked for and nnz does not fit in int32).
template <typename ValueType, typename IndexType>
void spmm_cusparse(const DeviceCsr<ValueType, IndexType>& a, InputView<ValueType> b,
                   DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                   cudaStream_t stream = nullptr, const CusparseHandle* handle = nullptr);

/// The launch spmm_tiled_ell makes on the current device for k columns of B. The register
/// factor (0 = chosen from k like the cpu kernel) is halved while the staging buffer
/// (max_stage_entries x factor values) exceeds the device's shared memory per block or
/// the block exceeds the launch bounds of that factor (512 threads when a thread holds
/// 128 bytes of accumulators, else 1024). Throws InvalidInput (factor not 0/4/8/16/32,
/// block_rows above 1024), CudaError (even factor 4 does not fit: the message names the
/// bytes needed and available).
template <typename ValueType, typename IndexType>
TiledEllLaunch plan_tiled_ell(const DeviceTiledEll<ValueType, IndexType>& a, size_type k,
                              int register_factor = 0);

/// C := epilogue(A·B) with the thesis's tiled ELL kernel: one block per row block, each
/// stage's rows of B staged in shared memory one register tile of columns at a time,
/// accumulators in registers; grid.y over column tiles. Returns the launch it made.
/// Throws as plan_tiled_ell, DimensionMismatch.
template <typename ValueType, typename IndexType>
TiledEllLaunch spmm_tiled_ell(const DeviceTiledEll<ValueType, IndexType>& a,
                              InputView<ValueType> b, DenseView<ValueType> c,
                              const Epilogue<ValueType>& epilogue = {}, int register_factor = 0,
                              cudaStream_t stream = nullptr);

/// C := epilogue(Aᵀ·B) on A's tiles (A m x n, B m x k, C n x k), no Aᵀ stored: per stage
/// each thread's products go into shared memory, then into a zeroed n x k scratch (atomics,
/// so the order of the sums depends on timing), then the epilogue into C. Throws
/// DimensionMismatch, CudaError (a stage does not fit in shared memory).
template <typename ValueType, typename IndexType>
void spmm_tiled_ell_transposed(const DeviceTiledEll<ValueType, IndexType>& a, InputView<ValueType> b,
                               DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                               cudaStream_t stream = nullptr);

/// C := epilogue(C) in place, C taken as the product (device memory, row-major). Nothing runs
/// when it is the identity; throws InvalidInput when it has beta != 0 (no old C is left).
template <typename ValueType>
void apply_epilogue(DenseView<ValueType> c, const Epilogue<ValueType>& epilogue,
                    cudaStream_t stream = nullptr);

}  // namespace device

/// A CUDA stream that does not synchronise with the legacy default stream
/// (cudaStreamNonBlocking), destroyed with its owner. Move-only.
class Stream {
public:
    Stream() { TESSEL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~Stream() {
        if (stream_) cudaStreamDestroy(stream_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
    Stream& operator=(Stream&&) = delete;
    cudaStream_t get() const { return stream_; }
    /// Waits for the work enqueued so far. Throws CudaError.
    void synchronize() const { TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    cudaStream_t stream_ = nullptr;
};

/// A pair of CUDA events that times the work enqueued on a stream between start and stop.
class EventTimer {
public:
    EventTimer() {
        TESSEL_CUDA_CHECK(cudaEventCreate(&start_));
        const cudaError_t status = cudaEventCreate(&stop_);
        if (status != cudaSuccess) {
            cudaEventDestroy(start_);
            detail::throw_cuda_error(__FILE__, __LINE__, "cudaEventCreate(&stop_)", status);
        }
    }
    ~EventTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;

    void start(cudaStream_t stream = nullptr) { TESSEL_CUDA_CHECK(cudaEventRecord(start_, stream)); }
    void stop(cudaStream_t stream = nullptr) { TESSEL_CUDA_CHECK(cudaEventRecord(stop_, stream)); }
    /// Milliseconds from start to stop; waits for the stop event.
    double elapsed_ms() const {
        TESSEL_CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        TESSEL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return ms;
    }

private:
    cudaEvent_t start_ = nullptr;
    cudaEvent_t stop_ = nullptr;
};

/// Average milliseconds per call of `launch()` (which enqueues work on `stream`) over
/// `repetitions` calls, after `warmup` untimed calls. Waits for the stream.
template <typename Launch>
double time_ms(Launch&& launch, cudaStream_t stream = nullptr, int repetitions = 1,
               int warmup = 1) {
    for (int i = 0; i < warmup; ++i) launch();
    EventTimer timer;
    timer.start(stream);
    for (int i = 0; i < repetitions; ++i) launch();
    timer.stop(stream);
    return timer.elapsed_ms() / (repetitions > 0 ? repetitions : 1);
}

}  // namespace tessel::cuda
