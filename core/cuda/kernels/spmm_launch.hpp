// What the SpMM launches of the CUDA backend share (internal): the shape check of A, B and C,
// the stand-alone epilogue pass, and scratch memory allocated and freed in stream order.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_limits.hpp"
#include "core/dense.hpp"
#include "core/error.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/types.hpp"

namespace tessel::cuda::detail {

/// Throws DimensionMismatch unless A (a_rows x a_cols), B and C fit together and B and C
/// are row-major. `kernel` names the caller in the message.
template <typename V>
void check_spmm_shapes(const char* kernel, size_type a_rows, size_type a_cols,
                       DenseView<const V> b, DenseView<V> c) {
    TESSEL_ENSURE_DIMS(a_cols == b.rows && a_rows == c.rows && b.cols == c.cols,
                       std::string(kernel) + ": A is " + std::to_string(a_rows) + "x" +
                           std::to_string(a_cols) + ", B is " + std::to_string(b.rows) + "x" +
                           std::to_string(b.cols) + ", C is " + std::to_string(c.rows) + "x" +
                           std::to_string(c.cols));
    TESSEL_ENSURE_DIMS(b.layout == Layout::row_major && c.layout == Layout::row_major,
                       std::string(kernel) + ": B and C must be row-major");
}

/// C := epilogue(0, C) when from_zero (an empty product), else C := epilogue(C) with C taken as
/// the product (beta must be 0 then), on a row-major device matrix (core/cuda/kernels/csr_spmm_kernels.cu).
template <typename V>
void launch_epilogue(V* c, size_type rows, size_type cols, size_type ldc, const Epilogue<V>& ep,
                     bool from_zero, cudaStream_t stream);

/// Raises `kernel`'s dynamic shared memory limit to the device's opt-in maximum when
/// `shared_bytes` exceed the default: the same value from every thread, so concurrent callers
/// never lower it under one another.
template <typename Kernel>
void allow_shared_bytes(Kernel* kernel, size_type shared_bytes, const DeviceLimits& limits) {
    if (shared_bytes > limits.shared_per_block)
        TESSEL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(limits.shared_per_block_optin)));
}

/// launch(first_tile, tile_count) over `tiles` column tiles of `blocks` blocks each, in launches
/// of at most 2^31 - 1 blocks (the grid's x limit): as many tiles per launch as that allows.
template <typename Launch>
void launch_column_tiles(size_type blocks, size_type tiles, Launch&& launch) {
    constexpr size_type max_grid_x = 2147483647;
    const size_type per_launch = std::max<size_type>(1, std::min(tiles, max_grid_x / std::max<size_type>(blocks, 1)));
    for (size_type t0 = 0; t0 < tiles; t0 += per_launch) launch(t0, std::min(per_launch, tiles - t0));
}

/// Device memory allocated and freed in stream order (cudaMallocAsync / cudaFreeAsync).
class StreamScratch {
public:
    StreamScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
        if (bytes > 0) TESSEL_CUDA_CHECK(cudaMallocAsync(&data_, bytes, stream));
    }
    ~StreamScratch() {
        if (data_) cudaFreeAsync(data_, stream_);
    }
    StreamScratch(const StreamScratch&) = delete;
    StreamScratch& operator=(const StreamScratch&) = delete;
    void* get() const { return data_; }

private:
    void* data_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

}  // namespace tessel::cuda::detail
