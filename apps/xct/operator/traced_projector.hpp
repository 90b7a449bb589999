// A matrix-free A: every product traces its rays again (siddon.hpp) instead of reading a stored
// matrix. What --solver fbp needs when the phantom's sinograms must be made, without the build.
#pragma once

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/projector.hpp"

namespace tessel::xct {

/// y := A·x and x := Aᵀ·y with A the Siddon operator of `geometry` (the entries of
/// make_local_projector, summed in double), pixels and rays in natural order. Forward runs
/// OpenMP over rays; backward over rays with a private image per thread (threads x pixels x K
/// values), then summed. Nothing is stored: matrix_bytes() and nnz() are 0.
template <typename ValueType>
class TracedProjector final : public Projector<ValueType> {
public:
    explicit TracedProjector(Geometry geometry);
    size_type pixels() const override { return g_.num_pixels(); }
    size_type rays() const override { return g_.num_rays(); }
    void forward(DenseMatrix<ValueType>& x, DenseMatrix<ValueType>& y) override;
    void backward(DenseMatrix<ValueType>& y, DenseMatrix<ValueType>& x) override;
    double matrix_bytes() const override { return 0; }
    size_type nnz() const override { return 0; }
    nlohmann::json describe() const override;

private:
    Geometry g_;
};

}  // namespace tessel::xct
