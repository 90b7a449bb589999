// Column-wise vector algebra of iterative solvers on rows x k row-major blocks whose k columns
// are independent problems (xct's slices): dots, axpy, xpay, SIRT's scaling, update and residual,
// and CGLS's step sizes and stopping test. Per-column scalars are fp64 and live with the data
// (host arrays for cpu::, device arrays for cuda::device::, which enqueue on a stream and never
// wait), so that a solver on the device reads nothing back but what it reports. cpu and cuda
// twins, tested against each other (tests/core/test_column_kernels.cpp).
#pragma once

#include <string>

#include "core/dense.hpp"
#include "core/error.hpp"
#include "core/types.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace tessel::column {

/// The per-column scalars of a solver: `count` arrays of k doubles, slot s at s·k. residual and
/// active come last and side by side, so that one copy of 2k doubles reports an iteration.
enum Slot : int {
    gamma_norm = 0,  // CGLS: ‖Aᵀr‖²
    delta,      // CGLS: ‖A·p‖²
    alpha,      // CGLS: γ/δ
    beta,       // CGLS: γ'/γ
    rr,         // ‖r‖²
    ss,         // CGLS: ‖Aᵀr‖² of the new residual
    bnorm,      // ‖b‖
    update,     // 1 where p is updated this iteration
    residual,   // ‖r‖/‖b‖ recorded this iteration, -1 where the column did not iterate
    active,     // 1 while the column iterates
    count
};

/// Throws DimensionMismatch unless a and b are row-major and of one shape; `who` starts the message.
template <typename V, typename W>
void check_same_shape(const char* who, const DenseView<V>& a, const DenseView<W>& b) {
    TESSEL_ENSURE_DIMS(a.rows == b.rows && a.cols == b.cols && a.layout == Layout::row_major &&
                           b.layout == Layout::row_major,
                       std::string(who) + ": operands are " + std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                           " and " + std::to_string(b.rows) + "x" + std::to_string(b.cols) +
                           " (both must be row-major and of one shape)");
}

}  // namespace tessel::column

namespace tessel {

namespace cpu {

/// out[j] := Σ_i a(i,j)·b(i,j) in fp64, summed in blocks of 1024 rows combined in row order:
/// the same bits for any thread count. Throws DimensionMismatch.
template <typename ValueType>
void column_dots(DenseView<const ValueType> a, DenseView<const ValueType> b, double* out);

/// y(:,j) += sign·alpha[j]·x(:,j), the factor rounded to ValueType. Throws DimensionMismatch.
template <typename ValueType>
void axpy_columns(DenseView<ValueType> y, const double* alpha, double sign, DenseView<const ValueType> x);

/// p(:,j) := s(:,j) + beta[j]·p(:,j) where mask[j] != 0. Throws DimensionMismatch.
template <typename ValueType>
void xpay_columns(DenseView<ValueType> p, const double* beta, DenseView<const ValueType> s, const double* mask);

/// q(i,j) := weight[i]·r(i,j) (SIRT's R·r). Throws DimensionMismatch.
template <typename ValueType>
void scale_rows(DenseView<const ValueType> r, const ValueType* weight, DenseView<ValueType> q);

/// x(i,j) := x(i,j) + weight[i]·s(i,j), clamped at 0 when nonneg, where mask[j] != 0 (SIRT's
/// update with C). Throws DimensionMismatch.
template <typename ValueType>
void weighted_update(DenseView<ValueType> x, const ValueType* weight, DenseView<const ValueType> s,
                     const double* mask, bool nonneg);

/// r(:,j) := b(:,j) - q(:,j) where mask[j] != 0. Throws DimensionMismatch.
template <typename ValueType>
void residual_columns(DenseView<ValueType> r, DenseView<const ValueType> b, DenseView<const ValueType> q,
                      const double* mask);

/// CGLS's step: for active columns alpha := γ/δ, or the column stops when δ is not positive
/// (p in the null space); alpha := 0 for the others. `scalars` holds column::count x k.
void cgls_step_sizes(double* scalars, size_type k);

/// CGLS's new direction: for active columns beta := ss/γ, γ := ss, update := 1; else update := 0.
void cgls_directions(double* scalars, size_type k);

/// Records the iteration: for active columns residual := √rr / bnorm, and the column stops when
/// it drops below tol (tol > 0) or, with stop_at_zero_gamma (CGLS), when γ = 0; residual := -1
/// for columns that did not iterate.
void record_residuals(double* scalars, size_type k, double tol, bool stop_at_zero_gamma);

}  // namespace cpu

#if defined(TESSEL_HAVE_CUDA)
namespace cuda::device {

/// The cpu functions of the same names on device arrays (scalars too), enqueued on `stream`.
/// column_dots sums per block of 1024 rows and then the blocks in order (deterministic; the
/// order within a block differs from the cpu's). Throw DimensionMismatch, CudaError.
template <typename ValueType>
void column_dots(DenseView<const ValueType> a, DenseView<const ValueType> b, double* out, cudaStream_t stream);
template <typename ValueType>
void axpy_columns(DenseView<ValueType> y, const double* alpha, double sign, DenseView<const ValueType> x,
                  cudaStream_t stream);
template <typename ValueType>
void xpay_columns(DenseView<ValueType> p, const double* beta, DenseView<const ValueType> s, const double* mask,
                  cudaStream_t stream);
template <typename ValueType>
void scale_rows(DenseView<const ValueType> r, const ValueType* weight, DenseView<ValueType> q, cudaStream_t stream);
template <typename ValueType>
void weighted_update(DenseView<ValueType> x, const ValueType* weight, DenseView<const ValueType> s,
                     const double* mask, bool nonneg, cudaStream_t stream);
template <typename ValueType>
void residual_columns(DenseView<ValueType> r, DenseView<const ValueType> b, DenseView<const ValueType> q,
                      const double* mask, cudaStream_t stream);
/// dst := src (same shape, any leading dimensions), device to device.
template <typename ValueType>
void copy_columns(DenseView<const ValueType> src, DenseView<ValueType> dst, cudaStream_t stream);
void cgls_step_sizes(double* scalars, size_type k, cudaStream_t stream);
void cgls_directions(double* scalars, size_type k, cudaStream_t stream);
void record_residuals(double* scalars, size_type k, double tol, bool stop_at_zero_gamma, cudaStream_t stream);

}  // namespace cuda::device
#endif

}  // namespace tessel
