// The projectors' products on device operands (Projector::forward_device / backward_device): the
// local operator's resident A and Aᵀ on device views, timed by event pairs read after the
// solver's one wait per iteration; the turned operator's quarter turn by core's row kernels.
#include <string>

#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/turned_projector.hpp"
#include "core/error.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/dist/device_sender_multiplies_spmm.hpp"
#include "core/kernels/column_blocks.hpp"
#endif

namespace tessel::xct {

template <typename V>
void Projector<V>::forward_device(DenseView<const V>, DenseView<V>) {
    TESSEL_INVALID_INPUT("projector", 0, "device operands given to an operator that is not on a device");
}

template <typename V>
void Projector<V>::backward_device(DenseView<const V>, DenseView<V>) {
    TESSEL_INVALID_INPUT("projector", 0, "device operands given to an operator that is not on a device");
}

#if defined(TESSEL_HAVE_CUDA)

template <typename V>
struct LocalProjector<V>::DeviceTimes {
    cuda::PendingTimes times;
};

template <typename V>
void LocalProjector<V>::DeviceTimesDeleter::operator()(DeviceTimes* t) const {
    delete t;
}

template <typename V>
void LocalProjector<V>::forward_device(DenseView<const V> x, DenseView<V> y) {
    if (!on_device()) Projector<V>::forward_device(x, y);
    if (!device_times_) device_times_.reset(new DeviceTimes());
    auto& a = ready(false);
    device_times_->times.start(nullptr);
    a.multiply_device(x, y);
    device_times_->times.stop(nullptr, &this->stats_.forward_seconds);
    count_product(false, x.cols);
}

template <typename V>
void LocalProjector<V>::backward_device(DenseView<const V> y, DenseView<V> x) {
    if (!on_device()) Projector<V>::backward_device(y, x);
    if (!device_times_) device_times_.reset(new DeviceTimes());
    auto& op = ready(true);
    device_times_->times.start(nullptr);
    if (options_.scatter_transpose)
        op.multiply_transposed_device(y, x);
    else
        op.multiply_device(y, x);
    device_times_->times.stop(nullptr, &this->stats_.backward_seconds);
    count_product(true, y.cols);
}

template <typename V>
void LocalProjector<V>::collect_device_times() {
    if (device_times_) device_times_->times.collect();
}

// The distributed products on device operands: core/dist's device sender-multiplies on the
// solver's default stream, timed by event pairs there (read after the solver's wait).
template <typename V>
struct DistributedProjector<V>::DeviceTimes {
    cuda::PendingTimes times;
};

template <typename V>
void DistributedProjector<V>::DeviceTimesDeleter::operator()(DeviceTimes* t) const {
    delete t;
}

template <typename V>
void DistributedProjector<V>::run_device(bool backward, DenseView<const V> in, DenseView<V> out) {
    dist::DistSpmm<V, Index>& op = backward ? *bwd_ : *fwd_;
    auto* device = dynamic_cast<dist::DeviceSenderMultipliesSpmm<V, Index>*>(&op);
    if (!device) {  // host products: the base class throws its InvalidInput
        if (backward)
            Projector<V>::backward_device(in, out);
        else
            Projector<V>::forward_device(in, out);
    }
    TESSEL_ENSURE_DIMS(in.cols == k_ && out.cols == k_, "distributed projector: " + std::to_string(in.cols) +
                                                            " columns, built for " + std::to_string(k_));
    if (!device_times_) device_times_.reset(new DeviceTimes());
    const PhaseTimes before = op.times();
    device_times_->times.start(nullptr);
    device->multiply_device(in, out, nullptr);
    device_times_->times.stop(nullptr, backward ? &this->stats_.backward_seconds : &this->stats_.forward_seconds);
    count_product(op, before, in.rows, backward);
}

template <typename V>
void DistributedProjector<V>::forward_device(DenseView<const V> x, DenseView<V> y) {
    run_device(false, x, y);
}

template <typename V>
void DistributedProjector<V>::backward_device(DenseView<const V> y, DenseView<V> x) {
    run_device(true, y, x);
}

template <typename V>
void DistributedProjector<V>::collect_device_times() {
    if (device_times_) device_times_->times.collect();
}

// The 2K-column operands on the device and the turn: core's column-block kernels join x and x
// turned, split the product's two halves into the rays, and sum the two halves back onto the
// pixels through the inverse turn (one pass each, as the host's turned_projector.cpp).
template <typename V>
struct TurnedPairProjector<V>::Device {
    cuda::DeviceDense<V> wide_in, wide_out;
    cuda::DeviceBuffer<size_type> turn, unturn;
};

template <typename V>
void TurnedPairProjector<V>::DeviceDeleter::operator()(Device* d) const {
    delete d;
}

namespace {

template <typename V>
void ensure_shape(cuda::DeviceDense<V>& m, size_type rows, size_type cols) {
    if (m.rows() != rows || m.cols() != cols) m = cuda::DeviceDense<V>(rows, cols, -1, nullptr);  // in stream order
}

}  // namespace

// The turn and its inverse on the device, once.
template <typename V>
void TurnedPairProjector<V>::make_device() {
    if (device_) return;
    device_.reset(new Device());
    device_->turn = cuda::DeviceBuffer<size_type>(turn_.data(), pixels());
    device_->unturn = cuda::DeviceBuffer<size_type>(unturn_.data(), pixels());
}

template <typename V>
void TurnedPairProjector<V>::forward_device(DenseView<const V> x, DenseView<V> y) {
    if (!on_device()) Projector<V>::forward_device(x, y);
    const size_type k = x.cols, p = pixels(), h = half_->rays();
    TESSEL_ENSURE_DIMS(x.rows == p && y.rows == 2 * h && y.cols == k,
                       "turned forward: " + std::to_string(x.rows) + " pixel rows and " + std::to_string(y.rows) +
                           " ray rows for " + std::to_string(p) + " pixels and " + std::to_string(2 * h) + " rays");
    make_device();
    Device& d = *device_;
    ensure_shape(d.wide_in, p, 2 * k);
    ensure_shape(d.wide_out, h, 2 * k);
    cuda::device::join_column_blocks(x, nullptr, x, d.turn.data(), d.wide_in.view(), nullptr);
    const SpmmStats before = half_->stats();
    half_->forward_device(DenseView<const V>(d.wide_in.view()), d.wide_out.view());
    count(before, false);
    cuda::device::split_column_blocks(DenseView<const V>(d.wide_out.view()),
                                      DenseView<V>(y.data, h, k, Layout::row_major, y.ld),
                                      DenseView<V>(y.data + h * y.ld, h, k, Layout::row_major, y.ld), nullptr);
}

template <typename V>
void TurnedPairProjector<V>::backward_device(DenseView<const V> y, DenseView<V> x) {
    if (!on_device()) Projector<V>::backward_device(y, x);
    const size_type k = y.cols, p = pixels(), h = half_->rays();
    TESSEL_ENSURE_DIMS(y.rows == 2 * h && x.rows == p && x.cols == k,
                       "turned backward: " + std::to_string(y.rows) + " ray rows and " + std::to_string(x.rows) +
                           " pixel rows for " + std::to_string(2 * h) + " rays and " + std::to_string(p) + " pixels");
    make_device();
    Device& d = *device_;
    ensure_shape(d.wide_in, p, 2 * k);
    ensure_shape(d.wide_out, h, 2 * k);
    cuda::device::join_column_blocks(DenseView<const V>(y.data, h, k, Layout::row_major, y.ld), nullptr,
                                     DenseView<const V>(y.data + h * y.ld, h, k, Layout::row_major, y.ld), nullptr,
                                     d.wide_out.view(), nullptr);
    const SpmmStats before = half_->stats();
    half_->backward_device(DenseView<const V>(d.wide_out.view()), d.wide_in.view());
    count(before, true);
    // x[turn(q)] gets the second block of row q: pixel t sums its own row and row unturn(t)'s.
    cuda::device::add_column_blocks(DenseView<const V>(d.wide_in.view()), d.unturn.data(), x, nullptr);
}

template <typename V>
void TurnedPairProjector<V>::collect_device_times() {
    const SpmmStats before = half_->stats();
    half_->collect_device_times();
    const SpmmStats& now = half_->stats();
    this->stats_.forward_seconds += now.forward_seconds - before.forward_seconds;
    this->stats_.backward_seconds += now.backward_seconds - before.backward_seconds;
}

#else  // builds without CUDA: no projector is ever on a device

// The device products fall back to Projector's (which throws NotCompiled); nothing to time.
#define TESSEL_XCT_HOST_ONLY_DEVICE_PRODUCTS(Class)                                   \
    template <typename V>                                                             \
    void Class<V>::forward_device(DenseView<const V> x, DenseView<V> y) {             \
        Projector<V>::forward_device(x, y);                                           \
    }                                                                                 \
    template <typename V>                                                             \
    void Class<V>::backward_device(DenseView<const V> y, DenseView<V> x) {            \
        Projector<V>::backward_device(y, x);                                          \
    }                                                                                 \
    template <typename V>                                                             \
    void Class<V>::collect_device_times() {}

template <typename V>
struct LocalProjector<V>::DeviceTimes {};
template <typename V>
void LocalProjector<V>::DeviceTimesDeleter::operator()(DeviceTimes* t) const {
    delete t;
}
TESSEL_XCT_HOST_ONLY_DEVICE_PRODUCTS(LocalProjector)

template <typename V>
struct DistributedProjector<V>::DeviceTimes {};
template <typename V>
void DistributedProjector<V>::DeviceTimesDeleter::operator()(DeviceTimes* t) const {
    delete t;
}
TESSEL_XCT_HOST_ONLY_DEVICE_PRODUCTS(DistributedProjector)

template <typename V>
struct TurnedPairProjector<V>::Device {};
template <typename V>
void TurnedPairProjector<V>::DeviceDeleter::operator()(Device* d) const {
    delete d;
}
template <typename V>
void TurnedPairProjector<V>::make_device() {}
TESSEL_XCT_HOST_ONLY_DEVICE_PRODUCTS(TurnedPairProjector)
#undef TESSEL_XCT_HOST_ONLY_DEVICE_PRODUCTS

#endif

template class Projector<float>;
template class Projector<double>;

// The classes are instantiated with their other members (local_projector.cpp, turned_projector.cpp);
// these members are defined here.
#define TESSEL_INSTANTIATE(V)                                                                       \
    template void LocalProjector<V>::forward_device(DenseView<const V>, DenseView<V>);              \
    template void LocalProjector<V>::backward_device(DenseView<const V>, DenseView<V>);             \
    template void LocalProjector<V>::collect_device_times();                                        \
    template void LocalProjector<V>::DeviceTimesDeleter::operator()(DeviceTimes*) const;            \
    template void DistributedProjector<V>::forward_device(DenseView<const V>, DenseView<V>);        \
    template void DistributedProjector<V>::backward_device(DenseView<const V>, DenseView<V>);       \
    template void DistributedProjector<V>::collect_device_times();                                  \
    template void DistributedProjector<V>::DeviceTimesDeleter::operator()(DeviceTimes*) const;      \
    template void TurnedPairProjector<V>::forward_device(DenseView<const V>, DenseView<V>);         \
    template void TurnedPairProjector<V>::backward_device(DenseView<const V>, DenseView<V>);        \
    template void TurnedPairProjector<V>::collect_device_times();                                   \
    template void TurnedPairProjector<V>::make_device();                                            \
    template void TurnedPairProjector<V>::DeviceDeleter::operator()(Device*) const;
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::xct
