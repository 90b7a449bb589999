// CGLS and SIRT on K columns with per-column scalars in double precision, written once over a
// column space (host or device).
#include "apps/xct/solvers/solver.hpp"

#include <cmath>

#include "core/error.hpp"

namespace tessel::xct {

using namespace column;

std::string_view to_string(Algorithm algorithm) { return algorithm == Algorithm::cgls ? "cgls" : "sirt"; }

Algorithm parse_algorithm(std::string_view name) {
    if (name == "cgls") return Algorithm::cgls;
    if (name == "sirt") return Algorithm::sirt;
    TESSEL_INVALID_INPUT("solver", 0, "unknown solver '" + std::string(name) + "', expected cgls or sirt");
}

template <typename V>
Solver<V>::Solver(Projector<V>& op, const SolverOptions& options, Reducer sum)
    : op_(op), options_(options), sum_(std::move(sum)), on_device_(op.on_device()) {
    if (options_.iterations < 0)
        TESSEL_INVALID_INPUT("iterations", 0, "must not be negative");
    if (!(options_.tol >= 0)) TESSEL_INVALID_INPUT("tol", 0, "must not be negative");
    space_ = on_device_ ? make_device_space(op_) : make_host_space(op_);
}

template <typename V>
Solver<V>::~Solver() = default;

template <typename V>
bool Solver<V>::running(const SolverState<V>& state) const {
    if (state.iteration >= options_.iterations) return false;
    for (auto a : state.active)
        if (a) return true;
    return false;
}

// Sums `slots` slots over the ranks that share the columns (nothing to do on one rank).
template <typename V>
void Solver<V>::reduce(Slot first, int slots) {
    if (!sum_) return;
    auto values = space_->read(first, slots);
    sum_(values);
    space_->write(first, values);
}

// The iteration's residuals and active flags into the state's histories (one read).
template <typename V>
void Solver<V>::report(SolverState<V>& st) {
    const size_type k = static_cast<size_type>(st.active.size());
    const auto values = space_->read(residual, 2);  // residual, active
    for (size_type j = 0; j < k; ++j) {
        auto& h = st.history[j];
        const double res = values[j];
        h.push_back(res < 0 ? h.back() : res);
        st.active[j] = values[k + j] != 0;
    }
}

template <typename V>
void Solver<V>::sirt_weights(size_type k) {
    if (weights_ready_) return;
    weights_ready_ = true;
    std::vector<V> row_weight(static_cast<std::size_t>(op_.rays())), col_weight(static_cast<std::size_t>(op_.pixels()));
    if (op_.rays() + op_.pixels() > 0) {
        // Row and column sums of A as A·1 and Aᵀ·1 (distributed like any product).
        DenseMatrix<V> ones_x(op_.pixels(), k, Layout::row_major, V{1}), ones_y(op_.rays(), k, Layout::row_major, V{1});
        DenseMatrix<V> rows, cols;
        op_.forward(ones_x, rows);
        op_.backward(ones_y, cols);
        for (size_type i = 0; i < op_.rays(); ++i) row_weight[i] = rows(i, 0) > 0 ? V{1} / rows(i, 0) : V{0};
        for (size_type i = 0; i < op_.pixels(); ++i) col_weight[i] = cols(i, 0) > 0 ? V{1} / cols(i, 0) : V{0};
    }
    space_->set_weights(row_weight, col_weight);
}

template <typename V>
void Solver<V>::start(const DenseMatrix<V>& b, SolverState<V>& st) {
    begin(b, nullptr, st);
}

template <typename V>
void Solver<V>::start_from(const DenseMatrix<V>& b, const DenseMatrix<V>& x0, SolverState<V>& st) {
    TESSEL_ENSURE_DIMS(x0.rows() == op_.pixels() && x0.cols() == b.cols(),
                       "solver: the start image has " + std::to_string(x0.rows()) + " x " + std::to_string(x0.cols()) +
                           " values, expected " + std::to_string(op_.pixels()) + " x " + std::to_string(b.cols()));
    begin(b, &x0, st);
}

template <typename V>
void Solver<V>::begin(const DenseMatrix<V>& b, const DenseMatrix<V>* x0, SolverState<V>& st) {
    TESSEL_ENSURE_DIMS(b.rows() == op_.rays(), "solver: sinogram has " + std::to_string(b.rows()) +
                                                    " rays, the operator " + std::to_string(op_.rays()));
    const size_type k = b.cols();
    const bool cgls = options_.algorithm == Algorithm::cgls;
    st.iteration = 0;
    space_->bind(b, st, cgls);
    if (x0) {
        st.x = *x0;
        st.r = b;
        st.p = cgls ? DenseMatrix<V>(op_.pixels(), k) : DenseMatrix<V>();
        space_->load();
    } else {
        space_->load_fresh();  // on a device: x, r and p made there; no host copies until stored
    }
    space_->dots(Vec::b, Vec::b, rr);
    reduce(rr, 1);
    const std::vector<double> bb = space_->read(rr, 1);
    std::vector<double> res_rr = bb;
    if (x0) {  // r = b - A·x0
        space_->forward(Vec::x, Vec::q);
        space_->write(alpha, std::vector<double>(static_cast<std::size_t>(k), 1.0));
        space_->axpy(Vec::r, alpha, -1.0, Vec::q);
        space_->dots(Vec::r, Vec::r, rr);
        reduce(rr, 1);
        res_rr = space_->read(rr, 1);
    }
    st.bnorm.assign(k, 0.0);
    st.active.assign(k, 0);
    st.history.assign(k, {});
    for (size_type j = 0; j < k; ++j) {
        st.bnorm[j] = std::sqrt(bb[j]);
        st.active[j] = st.bnorm[j] > 0;
        st.history[j].push_back(st.bnorm[j] > 0 ? std::sqrt(res_rr[j]) / st.bnorm[j] : 0.0);
    }
    st.gamma.assign(k, 0.0);
    if (cgls) {
        space_->backward(Vec::r, Vec::s);
        space_->copy(Vec::s, Vec::p);
        space_->dots(Vec::s, Vec::s, gamma_norm);
        reduce(gamma_norm, 1);
        st.gamma = space_->read(gamma_norm, 1);
        for (size_type j = 0; j < k; ++j)
            if (st.gamma[j] == 0) st.active[j] = 0;  // Aᵀr = 0: x is the answer
    }
    space_->write(bnorm, st.bnorm);
    space_->write(active, std::vector<double>(st.active.begin(), st.active.end()));
    if (!cgls) sirt_weights(k);  // before the iterations: their traffic stays a few bytes
}

template <typename V>
void Solver<V>::resume(const DenseMatrix<V>& b, SolverState<V>& st) {
    TESSEL_ENSURE_DIMS(b.rows() == op_.rays() && st.x.rows() == op_.pixels() && st.r.rows() == op_.rays() &&
                           st.x.cols() == b.cols() && st.r.cols() == b.cols(),
                       "solver: the resumed state does not match the sinograms");
    space_->bind(b, st, options_.algorithm == Algorithm::cgls);
    space_->load();
    space_->write(gamma_norm, st.gamma);
    space_->write(bnorm, st.bnorm);
    space_->write(active, std::vector<double>(st.active.begin(), st.active.end()));
    if (options_.algorithm == Algorithm::sirt) sirt_weights(b.cols());
}

template <typename V>
void Solver<V>::cgls_step() {
    space_->forward(Vec::p, Vec::q);
    space_->dots(Vec::q, Vec::q, delta);
    reduce(delta, 1);
    space_->cgls_step_sizes();
    space_->axpy(Vec::x, alpha, 1.0, Vec::p);
    space_->axpy(Vec::r, alpha, -1.0, Vec::q);
    space_->backward(Vec::r, Vec::s);
    space_->dots(Vec::r, Vec::r, rr);
    space_->dots(Vec::s, Vec::s, ss);
    reduce(rr, 2);  // rr and ss
    space_->cgls_directions();
    space_->xpay(Vec::p, beta, Vec::s, update);
    space_->record_residuals(options_.tol, true);
}

template <typename V>
void Solver<V>::sirt_step() {
    // q = R·r, s = Aᵀq, x += C·s (clamped), r = b - A·x.
    space_->scale_rows(Vec::r, Vec::q);
    space_->backward(Vec::q, Vec::s);
    space_->weighted_update(Vec::x, Vec::s, options_.nonneg);
    space_->forward(Vec::x, Vec::q);
    space_->residual(Vec::r, Vec::b, Vec::q);
    space_->dots(Vec::r, Vec::r, rr);
    reduce(rr, 1);
    space_->record_residuals(options_.tol, false);
}

template <typename V>
void Solver<V>::step(const DenseMatrix<V>& b, SolverState<V>& st) {
    const size_type k = b.cols();
    // The per-column state (on a device the vectors stay there: the host's may be empty).
    TESSEL_ENSURE_DIMS(b.rows() == op_.rays() && static_cast<size_type>(st.bnorm.size()) == k &&
                           static_cast<size_type>(st.active.size()) == k,
                       "solver: state does not match the sinogram");
    if (options_.algorithm == Algorithm::cgls)
        cgls_step();
    else
        sirt_step();
    report(st);
    ++st.iteration;
}

template <typename V>
void Solver<V>::sync(SolverState<V>& st) {
    space_->store();
    if (options_.algorithm == Algorithm::cgls && !st.active.empty()) st.gamma = space_->read(gamma_norm, 1);
}

template <typename V>
void Solver<V>::sync_image(SolverState<V>&) {
    space_->store_image();  // into the state the space is bound to (start or resume)
}

template class Solver<float>;
template class Solver<double>;

}  // namespace tessel::xct
