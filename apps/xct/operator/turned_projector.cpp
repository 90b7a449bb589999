#include "apps/xct/operator/turned_projector.hpp"

#include <string>

#include "core/error.hpp"

namespace tessel::xct {

template <typename V>
TurnedPairProjector<V>::TurnedPairProjector(std::unique_ptr<Projector<V>> half, std::vector<size_type> turn)
    : half_(std::move(half)), turn_(std::move(turn)), unturn_(turn_.size(), -1) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(turn_.size()) == half_->pixels(),
                       "TurnedPairProjector: " + std::to_string(turn_.size()) + " turned positions for " +
                           std::to_string(half_->pixels()) + " pixels");
    // A quarter turn of the pixel grid is a permutation; backward sums through its inverse.
    for (std::size_t q = 0; q < turn_.size(); ++q) {
        const size_type t = turn_[q];
        TESSEL_ENSURE_DIMS(t >= 0 && t < half_->pixels() && unturn_[t] < 0,
                           "TurnedPairProjector: the turned positions are not a permutation (position " +
                               std::to_string(q) + ")");
        unturn_[t] = static_cast<size_type>(q);
    }
}

namespace {

// `m` as a row-major rows x cols matrix; its storage is kept when it already is one (every
// entry is written next, so a fresh zero-filled one per call would be a serial pass wasted).
template <typename V>
void shape(DenseMatrix<V>& m, size_type rows, size_type cols) {
    if (m.rows() != rows || m.cols() != cols || m.layout() != Layout::row_major) m = DenseMatrix<V>(rows, cols);
}

}  // namespace

template <typename V>
void TurnedPairProjector<V>::forward(DenseMatrix<V>& x, DenseMatrix<V>& y) {
    TESSEL_ENSURE_DIMS(x.rows() == pixels() && x.layout() == Layout::row_major,
                       "turned forward: " + std::to_string(x.rows()) + " rows for " + std::to_string(pixels()) + " pixels");
    const size_type k = x.cols(), p = pixels(), h = half_->rays();
    if (wide_in_.rows() != p || wide_in_.cols() != 2 * k) wide_in_ = DenseMatrix<V>(p, 2 * k);
#pragma omp parallel for schedule(static)
    for (size_type q = 0; q < p; ++q)
        for (size_type j = 0; j < k; ++j) {
            wide_in_(q, j) = x(q, j);
            wide_in_(q, k + j) = x(turn_[q], j);
        }
    const SpmmStats before = half_->stats();
    half_->forward(wide_in_, wide_out_);
    count(before, false);
    shape(y, 2 * h, k);
#pragma omp parallel for schedule(static)
    for (size_type r = 0; r < h; ++r)
        for (size_type j = 0; j < k; ++j) {
            y(r, j) = wide_out_(r, j);
            y(h + r, j) = wide_out_(r, k + j);
        }
}

template <typename V>
void TurnedPairProjector<V>::backward(DenseMatrix<V>& y, DenseMatrix<V>& x) {
    TESSEL_ENSURE_DIMS(y.rows() == rays() && y.layout() == Layout::row_major,
                       "turned backward: " + std::to_string(y.rows()) + " rows for " + std::to_string(rays()) + " rays");
    const size_type k = y.cols(), p = pixels(), h = half_->rays();
    if (wide_out_.rows() != h || wide_out_.cols() != 2 * k) wide_out_ = DenseMatrix<V>(h, 2 * k);
#pragma omp parallel for schedule(static)
    for (size_type r = 0; r < h; ++r)
        for (size_type j = 0; j < k; ++j) {
            wide_out_(r, j) = y(r, j);
            wide_out_(r, k + j) = y(h + r, j);
        }
    const SpmmStats before = half_->stats();
    half_->backward(wide_out_, wide_in_);
    count(before, true);
    shape(x, p, k);
    // The turned half lands on the turned pixels: x[turn(q)] gets column block 2 of row q, so
    // pixel t sums its own row and row unturn(t)'s second block (one pass: the same sums, in
    // the same order, as a copy and then a scattered addition).
#pragma omp parallel for schedule(static)
    for (size_type t = 0; t < p; ++t)
        for (size_type j = 0; j < k; ++j) x(t, j) = wide_in_(t, j) + wide_in_(unturn_[t], k + j);
}

// The inner operator's counters since `before`, added to this one's (one call here each).
template <typename V>
void TurnedPairProjector<V>::count(const SpmmStats& before, bool backward) {
    const SpmmStats& now = half_->stats();
    auto& s = this->stats_;
    (backward ? s.backward_calls : s.forward_calls) += 1;
    (backward ? s.backward_seconds : s.forward_seconds) +=
        backward ? now.backward_seconds - before.backward_seconds : now.forward_seconds - before.forward_seconds;
    s.flops += now.flops - before.flops;
    s.bytes += now.bytes - before.bytes;
}

template <typename V>
nlohmann::json TurnedPairProjector<V>::describe() const {
    nlohmann::json d = half_->describe();
    d["symmetry"] = "quarter turn: the first half of the angles stored, applied to the image and its turn";
    return d;
}

template class TurnedPairProjector<float>;
template class TurnedPairProjector<double>;

}  // namespace tessel::xct
