#include "apps/xct/operator/turned_projector.hpp"

#include <string>

#include "core/error.hpp"

namespace tessel::xct {

template <typename V>
TurnedPairProjector<V>::TurnedPairProjector(std::unique_ptr<Projector<V>> half, std::vector<size_type> turn)
    : half_(std::move(half)), turn_(std::move(turn)) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(turn_.size()) == half_->pixels(),
                       "TurnedPairProjector: " + std::to_string(turn_.size()) + " turned positions for " +
                           std::to_string(half_->pixels()) + " pixels");
}

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
    y = DenseMatrix<V>(2 * h, k);
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
    x = DenseMatrix<V>(p, k);
    // The turned half lands on the turned pixels: x[turn(q)] gets column block 2 of row q.
#pragma omp parallel for schedule(static)
    for (size_type q = 0; q < p; ++q)
        for (size_type j = 0; j < k; ++j) x(q, j) = wide_in_(q, j);
#pragma omp parallel for schedule(static)
    for (size_type q = 0; q < p; ++q)
        for (size_type j = 0; j < k; ++j) x(turn_[q], j) += wide_in_(q, k + j);
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
