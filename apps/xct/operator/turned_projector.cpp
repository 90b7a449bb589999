#include "apps/xct/operator/turned_projector.hpp"

#include <algorithm>
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
    // Rows copied through pointers (every matrix here is contiguous row-major).
    const V* xs = x.data();
    V* wide = wide_in_.data();
#pragma omp parallel for schedule(static)
    for (size_type q = 0; q < p; ++q) {
        std::copy_n(xs + q * k, k, wide + q * 2 * k);
        std::copy_n(xs + turn_[q] * k, k, wide + q * 2 * k + k);
    }
    const SpmmStats before = half_->stats();
    half_->forward(wide_in_, wide_out_);
    count(before, false);
    TESSEL_ENSURE_DIMS(wide_out_.layout() == Layout::row_major, "turned forward: the half's output is not row-major");
    shape(y, 2 * h, k);
    const V* out = wide_out_.data();
    V* ys = y.data();
#pragma omp parallel for schedule(static)
    for (size_type r = 0; r < h; ++r) {
        std::copy_n(out + r * 2 * k, k, ys + r * k);
        std::copy_n(out + r * 2 * k + k, k, ys + (h + r) * k);
    }
}

template <typename V>
void TurnedPairProjector<V>::backward(DenseMatrix<V>& y, DenseMatrix<V>& x) {
    TESSEL_ENSURE_DIMS(y.rows() == rays() && y.layout() == Layout::row_major,
                       "turned backward: " + std::to_string(y.rows()) + " rows for " + std::to_string(rays()) + " rays");
    const size_type k = y.cols(), p = pixels(), h = half_->rays();
    if (wide_out_.rows() != h || wide_out_.cols() != 2 * k) wide_out_ = DenseMatrix<V>(h, 2 * k);
    const V* ys = y.data();
    V* wide = wide_out_.data();
#pragma omp parallel for schedule(static)
    for (size_type r = 0; r < h; ++r) {
        std::copy_n(ys + r * k, k, wide + r * 2 * k);
        std::copy_n(ys + (h + r) * k, k, wide + r * 2 * k + k);
    }
    const SpmmStats before = half_->stats();
    half_->backward(wide_out_, wide_in_);
    count(before, true);
    TESSEL_ENSURE_DIMS(wide_in_.layout() == Layout::row_major, "turned backward: the half's output is not row-major");
    shape(x, p, k);
    // The turned half lands on the turned pixels: x[turn(q)] gets column block 2 of row q, so
    // pixel t sums its own row and row unturn(t)'s second block (one pass: the same sums, in
    // the same order, as a copy and then a scattered addition).
    const V* in = wide_in_.data();
    V* xs = x.data();
#pragma omp parallel for schedule(static)
    for (size_type t = 0; t < p; ++t) {
        const V* own = in + t * 2 * k;
        const V* turned = in + unturn_[t] * 2 * k + k;
        for (size_type j = 0; j < k; ++j) xs[t * k + j] = own[j] + turned[j];
    }
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
