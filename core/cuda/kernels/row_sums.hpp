// Device kernels that move and add whole rows of row-major matrices: the packing and the local
// sums of an exchange step (comm::DeviceExchangeExecutor) on data that stays on the GPU.
// Only in builds with the CUDA backend. Every pointer is device memory; kernels are enqueued
// on `stream` and return without waiting for it. Throw CudaError, DimensionMismatch.
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/cuda/kernels/row_sums.hpp needs a build with the CUDA backend (TESSEL_HAVE_CUDA)"
#endif

#include <cuda_runtime_api.h>

#include <type_traits>

#include "core/dense.hpp"
#include "core/types.hpp"

namespace tessel::cuda::device {

/// Input rows: a view of const values whose type is deduced from the output alone, so that a
/// DenseView<ValueType> converts to it.
template <typename ValueType>
using RowsView = DenseView<const std::type_identity_t<ValueType>>;

/// packed[e, :] := in[rows[e], :] for e < count; `packed` holds count x in.cols values with
/// leading dimension in.cols (a send buffer).
template <typename ValueType>
void gather_rows(RowsView<ValueType> in, const size_type* rows, size_type count,
                 ValueType* packed, cudaStream_t stream = nullptr);

/// out[rows[t], :] += in[sources[ptr[t]], :] + in[sources[ptr[t] + 1], :] + ... for
/// t < targets, added one after the other in that order (comm::RowSumTable); each target row
/// is summed by its own threads, so no two threads write one value.
template <typename ValueType>
void add_row_sums(RowsView<ValueType> in, const size_type* rows, const size_type* ptr,
                  const size_type* sources, size_type targets, DenseView<ValueType> out,
                  cudaStream_t stream = nullptr);

/// out := 0 (every row, the columns 0 .. out.cols-1 only).
template <typename ValueType>
void fill_zero(DenseView<ValueType> out, cudaStream_t stream = nullptr);

}  // namespace tessel::cuda::device
