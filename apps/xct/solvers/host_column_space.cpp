// The host column space: the solver state's matrices are the vectors, core's cpu column kernels
// the operations, the projector's host products the products.
#include <algorithm>

#include "apps/xct/solvers/column_space.hpp"
#include "apps/xct/solvers/solver.hpp"
#include "core/error.hpp"

namespace tessel::xct {

namespace {

template <typename V>
DenseView<const V> cview(const DenseMatrix<V>& m) {
    return m.view();
}

template <typename V>
class HostColumnSpace final : public ColumnSpace<V> {
public:
    explicit HostColumnSpace(Projector<V>& op) : op_(op) {}

    void bind(const DenseMatrix<V>& b, SolverState<V>& state, bool direction) override {
        b_ = &b;
        state_ = &state;
        k_ = b.cols();
        direction_ = direction;
        scalars_.assign(static_cast<std::size_t>(column::count * k_), 0.0);
    }
    void load() override {}
    void load_fresh() override {
        state_->x = DenseMatrix<V>(op_.pixels(), k_);
        state_->r = *b_;
        state_->p = direction_ ? DenseMatrix<V>(op_.pixels(), k_) : DenseMatrix<V>();
    }
    void store() override {}
    void store_image() override {}

    void forward(Vec in, Vec out) override { op_.forward(mat(in), mat(out)); }
    void backward(Vec in, Vec out) override { op_.backward(mat(in), mat(out)); }
    void copy(Vec from, Vec to) override {
        const DenseMatrix<V>& a = mat(from);
        DenseMatrix<V>& b = mat(to);
        if (b.rows() != a.rows() || b.cols() != a.cols()) b = DenseMatrix<V>(a.rows(), a.cols());
        std::copy(a.data(), a.data() + a.size(), b.data());
    }
    void dots(Vec a, Vec b, column::Slot out) override { cpu::column_dots(cview(mat(a)), cview(mat(b)), slot(out)); }
    void axpy(Vec y, column::Slot alpha, double sign, Vec x) override {
        cpu::axpy_columns(mat(y).view(), slot(alpha), sign, cview(mat(x)));
    }
    void xpay(Vec p, column::Slot beta, Vec s, column::Slot mask) override {
        cpu::xpay_columns(mat(p).view(), slot(beta), cview(mat(s)), slot(mask));
    }
    void set_weights(const std::vector<V>& rows, const std::vector<V>& cols) override {
        row_weight_ = rows;
        col_weight_ = cols;
    }
    void scale_rows(Vec r, Vec q) override {
        DenseMatrix<V>& out = mat(q);
        if (out.rows() != mat(r).rows() || out.cols() != k_) out = DenseMatrix<V>(mat(r).rows(), k_);
        cpu::scale_rows(cview(mat(r)), row_weight_.data(), out.view());
    }
    void weighted_update(Vec x, Vec s, bool nonneg) override {
        cpu::weighted_update(mat(x).view(), col_weight_.data(), cview(mat(s)), slot(column::active), nonneg);
    }
    void residual(Vec r, Vec b, Vec q) override {
        cpu::residual_columns(mat(r).view(), cview(mat(b)), cview(mat(q)), slot(column::active));
    }
    void cgls_step_sizes() override { cpu::cgls_step_sizes(scalars_.data(), k_); }
    void cgls_directions() override { cpu::cgls_directions(scalars_.data(), k_); }
    void record_residuals(double tol, bool stop_at_zero_gamma) override {
        cpu::record_residuals(scalars_.data(), k_, tol, stop_at_zero_gamma);
    }
    std::vector<double> read(column::Slot first, int slots) override {
        return std::vector<double>(slot(first), slot(first) + slots * k_);
    }
    void write(column::Slot first, const std::vector<double>& values) override {
        std::copy(values.begin(), values.end(), slot(first));
    }

private:
    double* slot(column::Slot s) { return scalars_.data() + s * k_; }
    DenseMatrix<V>& mat(Vec v) {
        switch (v) {
        case Vec::b: return const_cast<DenseMatrix<V>&>(*b_);  // only ever read
        case Vec::x: return state_->x;
        case Vec::r: return state_->r;
        case Vec::p: return state_->p;
        case Vec::q: return q_;
        case Vec::s: return s_;
        }
        TESSEL_THROW(Error, "host column space: unknown vector");
    }

    Projector<V>& op_;
    const DenseMatrix<V>* b_ = nullptr;
    SolverState<V>* state_ = nullptr;
    size_type k_ = 0;
    bool direction_ = false;  // CGLS: p
    DenseMatrix<V> q_, s_;
    std::vector<double> scalars_;
    std::vector<V> row_weight_, col_weight_;
};

}  // namespace

template <typename V>
std::unique_ptr<ColumnSpace<V>> make_host_space(Projector<V>& op) {
    return std::make_unique<HostColumnSpace<V>>(op);
}

template std::unique_ptr<ColumnSpace<float>> make_host_space(Projector<float>&);
template std::unique_ptr<ColumnSpace<double>> make_host_space(Projector<double>&);

}  // namespace tessel::xct
