#include "apps/xct/operator/turned_projector.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "core/kernels/column_blocks.hpp"

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
    const DenseView<const V> xs(x.view());
    cpu::join_column_blocks(xs, nullptr, xs, turn_.data(), wide_in_.view());
    const SpmmStats before = half_->stats();
    half_->forward(wide_in_, wide_out_);
    count(before, false);
    TESSEL_ENSURE_DIMS(wide_out_.layout() == Layout::row_major, "turned forward: the half's output is not row-major");
    shape(y, 2 * h, k);
    cpu::split_column_blocks(DenseView<const V>(wide_out_.view()), DenseView<V>(y.data(), h, k),
                             DenseView<V>(y.data() + h * k, h, k));
}

template <typename V>
void TurnedPairProjector<V>::backward(DenseMatrix<V>& y, DenseMatrix<V>& x) {
    TESSEL_ENSURE_DIMS(y.rows() == rays() && y.layout() == Layout::row_major,
                       "turned backward: " + std::to_string(y.rows()) + " rows for " + std::to_string(rays()) + " rays");
    const size_type k = y.cols(), p = pixels(), h = half_->rays();
    if (wide_out_.rows() != h || wide_out_.cols() != 2 * k) wide_out_ = DenseMatrix<V>(h, 2 * k);
    cpu::join_column_blocks(DenseView<const V>(y.data(), h, k), nullptr, DenseView<const V>(y.data() + h * k, h, k),
                            nullptr, wide_out_.view());
    const SpmmStats before = half_->stats();
    half_->backward(wide_out_, wide_in_);
    count(before, true);
    TESSEL_ENSURE_DIMS(wide_in_.layout() == Layout::row_major, "turned backward: the half's output is not row-major");
    shape(x, p, k);
    // The turned half lands on the turned pixels: x[turn(q)] gets column block 2 of row q, so
    // pixel t sums its own row and row unturn(t)'s second block.
    cpu::add_column_blocks(DenseView<const V>(wide_in_.view()), unturn_.data(), x.view());
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
