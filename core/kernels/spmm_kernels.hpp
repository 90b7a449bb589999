// SpMM kernels C := epilogue(A·B, C) (alpha, beta, bias, clamp: core/kernels/epilogue.hpp), declared once and implemented per backend
// (core/reference, core/cpu, core/cuda). A is m x n sparse, B is n x k dense, C is m x k.
//
// Every function throws DimensionMismatch when the shapes do not agree. The cpu and cuda
// kernels need row-major B and C (any leading dimension); tessel::spmm (spmm.hpp) converts
// other layouts. Instantiated for {float, double} x {int32_t, int64_t}.
#pragma once

#include <string>

#include "core/backend.hpp"
#include "core/dense.hpp"
#include "core/error.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/kernels/epilogue.hpp"

namespace tessel {

namespace reference {

/// Throws DimensionMismatch ("spmm: A is RxC, B is ..., C is ...") unless A (rows x cols), B and
/// C fit together: the references' check of their operands.
template <typename ValueType>
void check_spmm_dims(size_type rows, size_type cols, DenseView<const ValueType> b, DenseView<ValueType> c) {
    TESSEL_ENSURE_DIMS(cols == b.rows && rows == c.rows && b.cols == c.cols,
                       "spmm: A is " + std::to_string(rows) + "x" + std::to_string(cols) + ", B is " +
                           std::to_string(b.rows) + "x" + std::to_string(b.cols) + ", C is " +
                           std::to_string(c.rows) + "x" + std::to_string(c.cols));
}

/// The oracle: the obvious serial triple loop, any layouts.
template <typename ValueType, typename IndexType>
void spmm(const Csr<ValueType, IndexType>& a, DenseView<const ValueType> b,
          DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});

/// The oracle on tiled ELL's own arrays (no conversion): every slot of every (block, stage,
/// warp) in storage order, padding included, any layouts.
template <typename ValueType, typename IndexType>
void spmm(const TiledEll<ValueType, IndexType>& a, DenseView<const ValueType> b,
          DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});

/// The oracle of the transposed product C := epilogue(Aᵀ·B) on the same arrays (A m x n,
/// B m x k, C n x k): every slot scattered in storage order.
template <typename ValueType, typename IndexType>
void spmm_transposed(const TiledEll<ValueType, IndexType>& a, DenseView<const ValueType> b,
                     DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});

}  // namespace reference

namespace cpu {

/// Register tiling factors compiled for the tiled-ELL kernel (columns of B per pass over A).
inline constexpr int register_factors[] = {1, 2, 4, 8, 12, 16, 32, 64};

/// CSR row split: rows divided among threads, each row's K outputs accumulated in
/// registers, vectorised over K.
template <typename ValueType, typename IndexType>
void spmm_row_split(const Csr<ValueType, IndexType>& a, DenseView<const ValueType> b,
                    DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});

/// CSR merge-based: the nonzeros split evenly among threads (merge path over row_ptr and
/// nonzeros); rows cut between threads are fixed up afterwards from carry-outs.
template <typename ValueType, typename IndexType>
void spmm_merge(const Csr<ValueType, IndexType>& a, DenseView<const ValueType> b,
                DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});

/// Tiled ELL (core/cpu/tiled_ell_block.hpp): one task per (row block, tile of R columns);
/// per stage the mapped rows of B are staged R-wide (in place when already packed) and the
/// ELL slots read them with 16-bit indices. R = 1 runs SIMD over the 32 lanes of a slot; R >= 2
/// keeps several rows x R columns in registers. A row's products are added in storage order,
/// so a column's result does not depend on R. `register_factor` is one of register_factors,
/// or 0 for choose_register_factor(k). Throws DimensionMismatch, InvalidInput (factor).
template <typename ValueType, typename IndexType>
void spmm_tiled_ell(const TiledEll<ValueType, IndexType>& a, DenseView<const ValueType> b,
                    DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                    int register_factor = 0);

/// C := epilogue(Aᵀ·B) on A's tiled ELL (A m x n, B m x k, C n x k; no Aᵀ stored): each
/// thread scatters a contiguous run of row blocks into its own n x R sums, stage by stage
/// through an L1 buffer, and the sums are added in thread order (the result depends on the
/// thread count, not on timing). Extra memory: threads x n x R values, kept by each thread
/// for the next call.
/// Throws DimensionMismatch, InvalidInput (factor).
template <typename ValueType, typename IndexType>
void spmm_tiled_ell_transposed(const TiledEll<ValueType, IndexType>& a, DenseView<const ValueType> b,
                               DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                               int register_factor = 0);

/// The register factor the cpu tiled kernel picks for k right-hand sides: the smallest power
/// of two >= k, 64 past 64 (A is then read once per 64 columns).
int choose_register_factor(size_type k);

/// The design the cpu tiled kernel runs on `a` with register factor r: "slot order" (r = 1,
/// or long ELL rows) or "register tiles" (core/cpu/tiled_ell_block.hpp).
template <typename ValueType, typename IndexType>
const char* tiled_ell_design(const TiledEll<ValueType, IndexType>& a, int register_factor);

}  // namespace cpu

namespace cuda {

// Host-level entry points: copy A, B to the device, run, copy C back. They time nothing
// themselves; device-resident forms for applications are in core/cuda/device_spmm.hpp.
// Without CUDA in the build they throw NotCompiled.

/// One warp per row (row split), lanes over K.
template <typename ValueType, typename IndexType>
void spmm_warp_row(const Csr<ValueType, IndexType>& a, DenseView<const ValueType> b,
                   DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});

/// Merge-based: nonzeros split evenly among warps, carry-outs fixed up.
template <typename ValueType, typename IndexType>
void spmm_merge(const Csr<ValueType, IndexType>& a, DenseView<const ValueType> b,
                DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});

/// cuSPARSE cusparseSpMM (the baseline); the epilogue runs as a separate kernel.
template <typename ValueType, typename IndexType>
void spmm_cusparse(const Csr<ValueType, IndexType>& a, DenseView<const ValueType> b,
                   DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});

/// The thesis's tiled ELL kernel: shared-memory staging, register tiling, launch bounds.
template <typename ValueType, typename IndexType>
void spmm_tiled_ell(const TiledEll<ValueType, IndexType>& a, DenseView<const ValueType> b,
                    DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                    int register_factor = 0);

}  // namespace cuda

}  // namespace tessel
