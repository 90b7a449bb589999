// Device-resident SpMM for applications: C := epilogue(A·B) on device pointers with an optional
// stream, for CSR (warp per row, merge, cuSPARSE) and tiled ELL (forward and transposed). The
// operands come from core/cuda/runtime/device_buffer.hpp and device_formats.hpp; streams and timers
// from core/cuda/runtime/stream.hpp (all included here, as the kernels are used with them).
//
// Only in builds with the CUDA backend (tessel_core then defines TESSEL_HAVE_CUDA). Every
// call reports failures as tessel::CudaError (core/cuda/runtime/cuda_check.hpp). Dense operands are
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

#include "core/cuda/device_formats.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/dense.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/types.hpp"

namespace tessel::cuda {

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
    /// The kernel variant of the main launch: the resident blocks per multiprocessor its
    /// registers are sized for (6 where blocks of up to 256 rows and their stages allow more
    /// than the four that 64 registers do; else 1: compiled for 1024 or 512 threads).
    int min_blocks = 1;
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

/// C := epilogue(A·B) on row groups (core/formats/grouped_ell.hpp): staged as spmm_tiled_ell,
/// each thread summing its G rows over their union of columns, R columns of B per tile (the
/// last tile masked): register_factor 32 / G or, for float and G > 1, 64 / G (32 or 64
/// accumulators; 0: 32 / G).
/// Returns the launch it made. Throws DimensionMismatch, InvalidInput (block_rows / G not a
/// multiple of 32 of at most 512, another register factor), CudaError (a stage does not fit).
template <typename ValueType, typename IndexType>
TiledEllLaunch spmm_grouped_ell(const DeviceGroupedEll<ValueType, IndexType>& a, InputView<ValueType> b,
                                DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                                int register_factor = 0, cudaStream_t stream = nullptr);

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

}  // namespace tessel::cuda
