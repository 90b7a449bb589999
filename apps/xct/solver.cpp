// CGLS and SIRT on K columns with per-column scalars in double precision.
#include "apps/xct/solver.hpp"

#include <cmath>

#include "apps/xct/column_ops.hpp"
#include "core/error.hpp"

namespace tessel::xct {

std::string_view to_string(Algorithm algorithm) { return algorithm == Algorithm::cgls ? "cgls" : "sirt"; }

Algorithm parse_algorithm(std::string_view name) {
    if (name == "cgls") return Algorithm::cgls;
    if (name == "sirt") return Algorithm::sirt;
    TESSEL_INVALID_INPUT("solver", 0, "unknown solver '" + std::string(name) + "', expected cgls or sirt");
}

template <typename V>
Solver<V>::Solver(Projector<V>& op, const SolverOptions& options, Reducer sum)
    : op_(op), options_(options), sum_(std::move(sum)) {
    if (options_.iterations < 0)
        TESSEL_INVALID_INPUT("iterations", 0, "must not be negative");
    if (!(options_.tol >= 0)) TESSEL_INVALID_INPUT("tol", 0, "must not be negative");
}

template <typename V>
bool Solver<V>::running(const SolverState<V>& state) const {
    if (state.iteration >= options_.iterations) return false;
    for (auto a : state.active)
        if (a) return true;
    return false;
}

template <typename V>
void Solver<V>::record(SolverState<V>& state, const std::vector<double>& rr) const {
    const std::size_t k = state.active.size();
    for (std::size_t j = 0; j < k; ++j) {
        auto& h = state.history[j];
        if (!state.active[j]) {
            h.push_back(h.back());
            continue;
        }
        const double res = std::sqrt(rr[j]) / state.bnorm[j];
        h.push_back(res);
        if (options_.tol > 0 && res < options_.tol) state.active[j] = 0;
    }
}

template <typename V>
void Solver<V>::sirt_weights(size_type k) {
    if (!row_weight_.empty() || op_.rays() + op_.pixels() == 0) return;
    // Row and column sums of A as A·1 and Aᵀ·1 (distributed like any product).
    DenseMatrix<V> ones_x(op_.pixels(), k, Layout::row_major, V{1}), ones_y(op_.rays(), k, Layout::row_major, V{1});
    DenseMatrix<V> rows, cols;
    op_.forward(ones_x, rows);
    op_.backward(ones_y, cols);
    row_weight_.resize(static_cast<std::size_t>(op_.rays()));
    col_weight_.resize(static_cast<std::size_t>(op_.pixels()));
    for (size_type i = 0; i < op_.rays(); ++i) row_weight_[i] = rows(i, 0) > 0 ? V{1} / rows(i, 0) : V{0};
    for (size_type i = 0; i < op_.pixels(); ++i) col_weight_[i] = cols(i, 0) > 0 ? V{1} / cols(i, 0) : V{0};
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
    st.iteration = 0;
    auto bb = column_dots(b, b);
    reduce(bb);
    std::vector<double> rr = bb;
    if (x0) {
        // r = b - A·x0.
        copy_matrix(*x0, st.x);
        op_.forward(st.x, q_);
        copy_matrix(b, st.r);
        axpy_columns(st.r, std::vector<double>(k, -1.0), q_);
        rr = column_dots(st.r, st.r);
        reduce(rr);
    } else {
        st.x = DenseMatrix<V>(op_.pixels(), k);
        copy_matrix(b, st.r);
    }
    st.bnorm.assign(k, 0.0);
    st.active.assign(k, 0);
    st.history.assign(k, {});
    for (size_type j = 0; j < k; ++j) {
        st.bnorm[j] = std::sqrt(bb[j]);
        st.active[j] = st.bnorm[j] > 0;
        st.history[j].push_back(st.bnorm[j] > 0 ? std::sqrt(rr[j]) / st.bnorm[j] : 0.0);
    }
    if (options_.algorithm == Algorithm::cgls) {
        op_.backward(st.r, s_);
        copy_matrix(s_, st.p);
        st.gamma = column_dots(s_, s_);
        reduce(st.gamma);
        for (size_type j = 0; j < k; ++j)
            if (st.gamma[j] == 0) st.active[j] = 0;  // Aᵀr = 0: x is the answer
    } else {
        st.p = DenseMatrix<V>();
        st.gamma.assign(k, 0.0);
    }
}

template <typename V>
void Solver<V>::step(const DenseMatrix<V>& b, SolverState<V>& st) {
    const size_type k = b.cols();
    TESSEL_ENSURE_DIMS(st.x.cols() == k && st.r.cols() == k && st.r.rows() == op_.rays(),
                       "solver: state does not match the sinogram");
    if (options_.algorithm == Algorithm::cgls) {
        op_.forward(st.p, q_);
        auto delta = column_dots(q_, q_);
        reduce(delta);
        std::vector<double> alpha(k, 0.0), minus_alpha(k, 0.0);
        for (size_type j = 0; j < k; ++j) {
            if (!st.active[j]) continue;
            if (!(delta[j] > 0)) {  // p is in the null space: nothing more to gain
                st.active[j] = 0;
                continue;
            }
            alpha[j] = st.gamma[j] / delta[j];
            minus_alpha[j] = -alpha[j];
        }
        axpy_columns(st.x, alpha, st.p);
        axpy_columns(st.r, minus_alpha, q_);
        op_.backward(st.r, s_);
        auto sums = column_dots(st.r, st.r);
        const auto ss = column_dots(s_, s_);
        sums.insert(sums.end(), ss.begin(), ss.end());
        reduce(sums);
        std::vector<double> beta(k, 0.0);
        std::vector<std::uint8_t> update(k, 0);
        for (size_type j = 0; j < k; ++j) {
            if (!st.active[j]) continue;
            const double gamma = sums[k + j];
            beta[j] = gamma / st.gamma[j];
            st.gamma[j] = gamma;
            update[j] = 1;
        }
        xpay_columns(st.p, beta, s_, update);
        record(st, std::vector<double>(sums.begin(), sums.begin() + k));
        for (size_type j = 0; j < k; ++j)
            if (st.active[j] && st.gamma[j] == 0) st.active[j] = 0;
    } else {
        sirt_weights(k);
        // q = R·r, s = Aᵀq, x += C·s (clamped), r = b - A·x.
        if (q_.rows() != op_.rays() || q_.cols() != k) q_ = DenseMatrix<V>(op_.rays(), k);
        {
            const V* r = st.r.data();
            V* q = q_.data();
            const size_type rows = op_.rays();
#pragma omp parallel for schedule(static)
            for (size_type i = 0; i < rows; ++i)
                for (size_type j = 0; j < k; ++j) q[i * k + j] = row_weight_[i] * r[i * k + j];
        }
        op_.backward(q_, s_);
        {
            V* x = st.x.data();
            const V* s = s_.data();
            const size_type rows = op_.pixels();
            const bool nonneg = options_.nonneg;
            const auto& active = st.active;
#pragma omp parallel for schedule(static)
            for (size_type i = 0; i < rows; ++i)
                for (size_type j = 0; j < k; ++j) {
                    if (!active[j]) continue;
                    V v = x[i * k + j] + col_weight_[i] * s[i * k + j];
                    x[i * k + j] = nonneg && v < V{0} ? V{0} : v;
                }
        }
        op_.forward(st.x, q_);
        {
            V* r = st.r.data();
            const V* q = q_.data();
            const V* bb = b.data();
            const size_type rows = op_.rays();
            const auto& active = st.active;
#pragma omp parallel for schedule(static)
            for (size_type i = 0; i < rows; ++i)
                for (size_type j = 0; j < k; ++j)
                    if (active[j]) r[i * k + j] = bb[i * k + j] - q[i * k + j];
        }
        auto rr = column_dots(st.r, st.r);
        reduce(rr);
        record(st, rr);
    }
    ++st.iteration;
}

template class Solver<float>;
template class Solver<double>;

}  // namespace tessel::xct
