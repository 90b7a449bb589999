// Where a solver's vectors live: the vector space CGLS and SIRT are written over once, on the host
// (the state's own matrices, core's cpu column kernels) or on a device (device matrices, core's
// cuda column kernels; nothing crosses per iteration but the report the solver reads).
#pragma once

#include <memory>
#include <vector>

#include "apps/xct/operator/projector.hpp"
#include "core/dense.hpp"
#include "core/kernels/column_kernels.hpp"

namespace tessel::xct {

template <typename ValueType>
struct SolverState;

/// The vectors of a solve: the sinograms b, the image x, the residual r, CGLS's direction p and
/// the work vectors q (rays) and s (pixels).
enum class Vec { b, x, r, p, q, s };

/// A solver's vectors and per-column scalars (core/kernels/column_kernels.hpp's slots) with the
/// operations CGLS and SIRT need. Every operation is enqueued in order; read() waits for them.
template <typename ValueType>
class ColumnSpace {
public:
    virtual ~ColumnSpace() = default;
    /// Takes b and the state as this solve's (k = b.cols() columns), with CGLS's p when
    /// `direction`. Host: the state's matrices are the vectors.
    virtual void bind(const DenseMatrix<ValueType>& b, SolverState<ValueType>& state, bool direction) = 0;
    /// Copies the state's x, r and p (shaped) into the space's (device: uploads; host: nothing).
    virtual void load() = 0;
    /// A fresh start: x := 0, r := b, p := 0 (host: in the state's matrices; device: made there,
    /// nothing goes up, and the state's matrices stay as they are until store()).
    virtual void load_fresh() = 0;
    /// Copies the space's x, r and p into the state, shaped (device: downloads; host: nothing).
    virtual void store() = 0;
    /// Copies the space's x alone into the state, shaped (the image, for output).
    virtual void store_image() = 0;
    /// out := A·in, out := Aᵀ·in.
    virtual void forward(Vec in, Vec out) = 0;
    virtual void backward(Vec in, Vec out) = 0;
    /// to := from.
    virtual void copy(Vec from, Vec to) = 0;
    /// slot out := the column dots of a and b.
    virtual void dots(Vec a, Vec b, column::Slot out) = 0;
    /// y(:,j) += sign·alpha[j]·x(:,j).
    virtual void axpy(Vec y, column::Slot alpha, double sign, Vec x) = 0;
    /// p(:,j) := s(:,j) + beta[j]·p(:,j) where mask[j] != 0.
    virtual void xpay(Vec p, column::Slot beta, Vec s, column::Slot mask) = 0;
    /// SIRT's R (per ray) and C (per pixel).
    virtual void set_weights(const std::vector<ValueType>& rows, const std::vector<ValueType>& cols) = 0;
    /// q := R·r; x := x + C·s (clamped at 0 when nonneg) and r := b - q, for the active columns.
    virtual void scale_rows(Vec r, Vec q) = 0;
    virtual void weighted_update(Vec x, Vec s, bool nonneg) = 0;
    virtual void residual(Vec r, Vec b, Vec q) = 0;
    /// The per-column steps of core/kernels/column_kernels.hpp on the scalars.
    virtual void cgls_step_sizes() = 0;
    virtual void cgls_directions() = 0;
    virtual void record_residuals(double tol, bool stop_at_zero_gamma) = 0;
    /// `slots` consecutive slots from `first` (k values each) to the host: waits for the work so
    /// far (device: one copy and one synchronisation); and back.
    virtual std::vector<double> read(column::Slot first, int slots) = 0;
    virtual void write(column::Slot first, const std::vector<double>& values) = 0;
};

/// The host space over the projector's host products.
template <typename ValueType>
std::unique_ptr<ColumnSpace<ValueType>> make_host_space(Projector<ValueType>& op);
/// The device space over the projector's device products (op.on_device()). Throws NotCompiled in
/// builds without CUDA.
template <typename ValueType>
std::unique_ptr<ColumnSpace<ValueType>> make_device_space(Projector<ValueType>& op);

}  // namespace tessel::xct
