// The device column space: b, x, r, p, q and s in device memory for the whole solve, the
// per-column scalars too; core's cuda column kernels and the projector's device products run on
// the default stream, and only read() (a pinned copy of a few doubles per column) waits.
#include <algorithm>

#include "apps/xct/solvers/column_space.hpp"
#include "apps/xct/solvers/solver.hpp"
#include "core/cuda/entry_points.hpp"
#include "core/error.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"
#include "core/cuda/runtime/transfer.hpp"
#endif

namespace tessel::xct {

#if defined(TESSEL_HAVE_CUDA)

namespace {

template <typename V>
class DeviceColumnSpace final : public ColumnSpace<V> {
public:
    explicit DeviceColumnSpace(Projector<V>& op) : op_(op) {}

    void bind(const DenseMatrix<V>& b, SolverState<V>& state, bool direction) override {
        state_ = &state;
        k_ = b.cols();
        direction_ = direction;
        const size_type rays = op_.rays(), pixels = op_.pixels();
        shape(b_, rays);
        b_.upload(b.view());
        shape(x_, pixels);
        shape(r_, rays);
        shape(q_, rays);
        shape(s_, pixels);
        if (direction_) shape(p_, pixels);
        if (scalars_.size() != column::count * k_) scalars_ = cuda::DeviceBuffer<double>(column::count * k_, nullptr);
        scalars_.fill_zero();
        staging_.reserve(column::count * k_);
        write_staging_.reserve(column::count * k_);
    }
    void load() override {
        x_.upload(state_->x.view());
        r_.upload(state_->r.view());
        if (direction_) p_.upload(state_->p.view());
    }
    void load_fresh() override {
        x_.fill_zero();
        cuda::device::copy_columns(cv(Vec::b), v(Vec::r), nullptr);
        if (direction_) p_.fill_zero();
    }
    // The state's host matrices are made when first stored, not at a fresh start: a solve
    // without checkpoints makes x alone, at its end (store_image).
    void store() override {
        shape_host(state_->x, op_.pixels());
        shape_host(state_->r, op_.rays());
        x_.download(state_->x.view());
        r_.download(state_->r.view());
        if (direction_) {
            shape_host(state_->p, op_.pixels());
            p_.download(state_->p.view());
        }
    }
    void store_image() override {
        shape_host(state_->x, op_.pixels());
        x_.download(state_->x.view());
    }

    void forward(Vec in, Vec out) override { op_.forward_device(cv(in), v(out)); }
    void backward(Vec in, Vec out) override { op_.backward_device(cv(in), v(out)); }
    void copy(Vec from, Vec to) override { cuda::device::copy_columns(cv(from), v(to), nullptr); }
    void dots(Vec a, Vec b, column::Slot out) override { cuda::device::column_dots(cv(a), cv(b), slot(out), nullptr); }
    void axpy(Vec y, column::Slot alpha, double sign, Vec x) override {
        cuda::device::axpy_columns(v(y), slot(alpha), sign, cv(x), nullptr);
    }
    void xpay(Vec p, column::Slot beta, Vec s, column::Slot mask) override {
        cuda::device::xpay_columns(v(p), slot(beta), cv(s), slot(mask), nullptr);
    }
    void set_weights(const std::vector<V>& rows, const std::vector<V>& cols) override {
        row_weight_ = cuda::DeviceBuffer<V>(rows.data(), size_type(rows.size()));
        col_weight_ = cuda::DeviceBuffer<V>(cols.data(), size_type(cols.size()));
        cuda::synchronize_stream(nullptr);  // the host vectors may go
    }
    void scale_rows(Vec r, Vec q) override { cuda::device::scale_rows(cv(r), row_weight_.data(), v(q), nullptr); }
    void weighted_update(Vec x, Vec s, bool nonneg) override {
        cuda::device::weighted_update(v(x), col_weight_.data(), cv(s), slot(column::active), nonneg, nullptr);
    }
    void residual(Vec r, Vec b, Vec q) override {
        cuda::device::residual_columns(v(r), cv(b), cv(q), slot(column::active), nullptr);
    }
    void cgls_step_sizes() override { cuda::device::cgls_step_sizes(scalars_.data(), k_, nullptr); }
    void cgls_directions() override { cuda::device::cgls_directions(scalars_.data(), k_, nullptr); }
    void record_residuals(double tol, bool stop_at_zero_gamma) override {
        cuda::device::record_residuals(scalars_.data(), k_, tol, stop_at_zero_gamma, nullptr);
    }
    std::vector<double> read(column::Slot first, int slots) override {
        const std::size_t count = static_cast<std::size_t>(slots * k_);
        cuda::copy_to_host(staging_.data(), slot(first), count * sizeof(double), nullptr);
        cuda::synchronize_stream(nullptr);
        write_in_flight_ = false;  // the wait covered the last write's copy too
        op_.collect_device_times();  // the products are done: their event times cost no wait
        return std::vector<double>(staging_.data(), staging_.data() + count);
    }
    void write(column::Slot first, const std::vector<double>& values) override {
        // The last write's copy may still read its staging: wait only when no read came between
        // (a sum over ranks is a read, MPI, a write; the next read waits for the write anyway).
        if (write_in_flight_) cuda::synchronize_stream(nullptr);
        std::copy(values.begin(), values.end(), write_staging_.data());
        cuda::copy_to_device(slot(first), write_staging_.data(), values.size() * sizeof(double), nullptr);
        write_in_flight_ = true;
    }

private:
    void shape_host(DenseMatrix<V>& m, size_type rows) {
        if (m.rows() != rows || m.cols() != k_ || m.layout() != Layout::row_major) m = DenseMatrix<V>(rows, k_);
    }
    void shape(cuda::DeviceDense<V>& m, size_type rows) {
        if (m.rows() != rows || m.cols() != k_) m = cuda::DeviceDense<V>(rows, k_, -1, nullptr);  // in stream order
    }
    double* slot(column::Slot s) { return scalars_.data() + s * k_; }
    cuda::DeviceDense<V>& mat(Vec which) {
        switch (which) {
        case Vec::b: return b_;
        case Vec::x: return x_;
        case Vec::r: return r_;
        case Vec::p: return p_;
        case Vec::q: return q_;
        case Vec::s: return s_;
        }
        TESSEL_THROW(Error, "device column space: unknown vector");
    }
    DenseView<V> v(Vec which) { return mat(which).view(); }
    DenseView<const V> cv(Vec which) { return DenseView<const V>(mat(which).view()); }

    Projector<V>& op_;
    SolverState<V>* state_ = nullptr;
    size_type k_ = 0;
    bool direction_ = false;  // CGLS: p
    cuda::DeviceDense<V> b_, x_, r_, p_, q_, s_;
    cuda::DeviceBuffer<double> scalars_;
    cuda::PinnedBuffer<double> staging_, write_staging_;
    bool write_in_flight_ = false;
    cuda::DeviceBuffer<V> row_weight_, col_weight_;
};

}  // namespace

template <typename V>
std::unique_ptr<ColumnSpace<V>> make_device_space(Projector<V>& op) {
    if (!op.on_device()) TESSEL_INVALID_INPUT("solver", 0, "a device solve needs an operator on the device");
    return std::make_unique<DeviceColumnSpace<V>>(op);
}

#else

template <typename V>
std::unique_ptr<ColumnSpace<V>> make_device_space(Projector<V>&) {  // never reached: no operator is on a device
    cuda::not_compiled("the device solver");
}

#endif

template std::unique_ptr<ColumnSpace<float>> make_device_space(Projector<float>&);
template std::unique_ptr<ColumnSpace<double>> make_device_space(Projector<double>&);

}  // namespace tessel::xct
