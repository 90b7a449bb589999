// A of a scan whose angles come in pairs 90° apart from the operator of its first half
// (turn_symmetry.hpp): the second half's rays are the first half's applied to the image turned
// a quarter, so both halves are one product with 2K columns, reading the half operator once.
#pragma once

#include <memory>
#include <vector>

#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/turn_symmetry.hpp"

namespace tessel::xct {

template <typename ValueType>
class TurnedPairProjector final : public Projector<ValueType> {
public:
    /// `half`: A of the first half of the angles (rays in the first half of paired_ordering);
    /// `turn`: turned_positions of the ordering.
    TurnedPairProjector(std::unique_ptr<Projector<ValueType>> half, std::vector<size_type> turn);
    size_type pixels() const override { return half_->pixels(); }
    size_type rays() const override { return 2 * half_->rays(); }
    /// y = [A_h·x ; A_h·(x turned)], one product A_h·[x, x turned].
    void forward(DenseMatrix<ValueType>& x, DenseMatrix<ValueType>& y) override;
    /// x = A_hᵀ·y₁ + (A_hᵀ·y₂) turned back, one product A_hᵀ·[y₁, y₂].
    void backward(DenseMatrix<ValueType>& y, DenseMatrix<ValueType>& x) override;
    bool on_device() const override { return half_->on_device(); }
    /// The same two products on device views: the turn gathered and scattered by core's row kernels.
    void forward_device(DenseView<const ValueType> x, DenseView<ValueType> y) override;
    void backward_device(DenseView<const ValueType> y, DenseView<ValueType> x) override;
    void collect_device_times() override;
    void finish_build() override { half_->finish_build(); }
    double matrix_bytes() const override { return half_->matrix_bytes(); }
    /// Nonzeros stored (A of the whole scan has twice as many).
    size_type nnz() const override { return half_->nnz(); }
    nlohmann::json describe() const override;

private:
    void count(const SpmmStats& before, bool backward);

    std::unique_ptr<Projector<ValueType>> half_;
    std::vector<size_type> turn_;
    std::vector<size_type> unturn_;  // the inverse permutation: unturn_[turn_[q]] = q
    DenseMatrix<ValueType> wide_in_, wide_out_;  // the 2K-column operands, kept between calls
    struct Device;  // the same on the device, with the turn (device_products.cpp)
    struct DeviceDeleter {
        void operator()(Device* d) const;
    };
    std::unique_ptr<Device, DeviceDeleter> device_;
    void make_device();
};

/// The turned operator of the scan `g` (angles paired): `make_half(half_geometry, half_order)`
/// builds A of the first half (or loads it); `ordering` becomes the whole scan's order, made
/// with `make_order(geometry)`.
template <typename ValueType, typename MakeOrder, typename MakeHalf>
std::unique_ptr<Projector<ValueType>> make_turned_projector(const Geometry& g, Ordering& ordering,
                                                            MakeOrder make_order, MakeHalf make_half) {
    const Geometry half = first_half(g);
    const Ordering half_order = make_order(half);
    ordering = paired_ordering(half_order, g);
    std::unique_ptr<Projector<ValueType>> half_op = make_half(half, half_order);
    return std::make_unique<TurnedPairProjector<ValueType>>(std::move(half_op), turned_positions(ordering, g.n));
}

}  // namespace tessel::xct
