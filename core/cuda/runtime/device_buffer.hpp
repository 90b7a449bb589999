// Device memory for applications: a typed buffer (cudaMalloc, or cudaMallocAsync in a stream's
// order for a buffer made for that stream; freed on destruction) and a row-major dense matrix
// with a leading dimension, uploaded and downloaded on a stream. Only in builds with the CUDA
// backend; failures throw tessel::CudaError.
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/cuda/runtime/device_buffer.hpp needs a build with the CUDA backend (TESSEL_HAVE_CUDA)"
#endif

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/dense.hpp"
#include "core/error.hpp"
#include "core/types.hpp"

namespace tessel::cuda {

/// `count` elements of T in device memory, freed on destruction; move-only. A buffer made for a
/// stream is allocated and freed in that stream's order (cudaMallocAsync, cudaFreeAsync: the host
/// does not wait for the device): that stream's later work and work ordered after it by an event
/// may use it, and all work that uses it must be ordered before the free on that stream (the
/// stream must outlive the buffer). A buffer made without a stream uses cudaMalloc and cudaFree,
/// which wait for the whole device, and any stream may use it.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    /// Uninitialised storage for `count` elements (cudaMalloc). Throws CudaError when the device
    /// is full.
    explicit DeviceBuffer(size_type count) : count_(count) { allocate(); }
    /// Uninitialised storage for `count` elements, allocated in `stream`'s order (nullptr: the
    /// legacy default stream). Throws CudaError when the device is full.
    DeviceBuffer(size_type count, cudaStream_t stream) : count_(count), stream_(stream), stream_ordered_(true) {
        allocate();
    }
    /// A device copy of host[0 .. count) (cudaMalloc; the copy ordered on `stream`).
    DeviceBuffer(const T* host, size_type count, cudaStream_t stream = nullptr)
        : DeviceBuffer(count) {
        upload(host, count, stream);
    }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)),
          count_(std::exchange(other.count_, 0)),
          stream_(other.stream_),
          stream_ordered_(other.stream_ordered_) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
            stream_ = other.stream_;
            stream_ordered_ = other.stream_ordered_;
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
        copy_to_device(data_ + offset, host, count * sizeof(T), stream);
    }
    /// Copies elements offset .. offset+count-1 to host[0 .. count) and waits for `stream`.
    void download(T* host, size_type count, cudaStream_t stream = nullptr,
                  size_type offset = 0) const {
        TESSEL_ENSURE_DIMS(offset >= 0 && count >= 0 && offset + count <= count_,
                           "device buffer download: " + std::to_string(count) +
                               " elements at " + std::to_string(offset) + " from " +
                               std::to_string(count_));
        if (count == 0) return;
        copy_to_host(host, data_ + offset, count * sizeof(T), stream);
        synchronize_stream(stream);
    }
    /// Sets every byte to zero, ordered on `stream`.
    void fill_zero(cudaStream_t stream = nullptr) {
        if (count_ > 0) TESSEL_CUDA_CHECK(cudaMemsetAsync(data_, 0, bytes(), stream));
    }

private:
    void allocate() {
        TESSEL_ENSURE_DIMS(count_ >= 0, "device buffer: negative size");
        if (count_ == 0) return;
        void* p = nullptr;
        if (stream_ordered_)
            TESSEL_CUDA_CHECK(cudaMallocAsync(&p, bytes(), stream_));
        else
            TESSEL_CUDA_CHECK(cudaMalloc(&p, bytes()));
        data_ = static_cast<T*>(p);
    }
    void release() noexcept {  // never throws (destructor, move)
        if (!data_) return;
        if (stream_ordered_)
            cudaFreeAsync(std::exchange(data_, nullptr), stream_);
        else
            cudaFree(std::exchange(data_, nullptr));
    }

    T* data_ = nullptr;
    size_type count_ = 0;
    cudaStream_t stream_ = nullptr;
    bool stream_ordered_ = false;
};

/// A row-major rows x cols dense matrix in device memory with leading dimension ld >= cols.
template <typename ValueType>
class DeviceDense {
public:
    DeviceDense() = default;
    /// Uninitialised; ld < 0 means ld = cols. Allocated with cudaMalloc (DeviceBuffer).
    DeviceDense(size_type rows, size_type cols, size_type ld = -1)
        : rows_(rows), cols_(cols), ld_(ld >= 0 ? ld : cols), storage_(checked_size(rows, cols, ld_)) {}
    /// The same, allocated and freed in `stream`'s order (DeviceBuffer's rules).
    DeviceDense(size_type rows, size_type cols, size_type ld, cudaStream_t stream)
        : rows_(rows), cols_(cols), ld_(ld >= 0 ? ld : cols), storage_(checked_size(rows, cols, ld_), stream) {}
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

    /// Columns first .. first+count-1 as a view (the same rows and leading dimension): a block
    /// of columns, such as one operand of several side by side. Throws DimensionMismatch.
    DenseView<ValueType> columns(size_type first, size_type count) {
        TESSEL_ENSURE_DIMS(first >= 0 && count >= 0 && first + count <= cols_,
                           "device dense: columns " + std::to_string(first) + " + " + std::to_string(count) +
                               " of " + std::to_string(cols_));
        return {storage_.data() + first, rows_, count, Layout::row_major, ld_};
    }

    /// Copies a row-major host matrix of the same shape (any ld), ordered on `stream`; the
    /// same lifetime rule as DeviceBuffer::upload. Throws DimensionMismatch.
    void upload(DenseView<const ValueType> host, cudaStream_t stream = nullptr) {
        check_host(host.rows, host.cols, host.layout, "upload");
        if (rows_ == 0 || cols_ == 0) return;
        copy_2d_to_device(storage_.data(), ld_ * sizeof(ValueType), host.data, host.ld * sizeof(ValueType),
                          cols_ * sizeof(ValueType), rows_, stream);
    }
    /// Copies into a row-major host matrix of the same shape (any ld) and waits for `stream`.
    void download(DenseView<ValueType> host, cudaStream_t stream = nullptr) const {
        check_host(host.rows, host.cols, host.layout, "download");
        if (rows_ == 0 || cols_ == 0) return;
        copy_2d_to_host(host.data, host.ld * sizeof(ValueType), storage_.data(), ld_ * sizeof(ValueType),
                        cols_ * sizeof(ValueType), rows_, stream);
        synchronize_stream(stream);
    }
    void fill_zero(cudaStream_t stream = nullptr) { storage_.fill_zero(stream); }

private:
    static size_type checked_size(size_type rows, size_type cols, size_type ld) {
        TESSEL_ENSURE_DIMS(rows >= 0 && cols >= 0 && ld >= cols,
                           "device dense: leading dimension " + std::to_string(ld) + " smaller than " +
                               std::to_string(cols));
        return rows * ld;
    }
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

}  // namespace tessel::cuda
