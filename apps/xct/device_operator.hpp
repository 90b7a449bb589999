// A and Aᵀ resident on the GPU (uploaded once as tiled ELL), multiplied with host vectors: the
// cuda backend of the local projector. Without CUDA in the build it throws NotCompiled.
#pragma once

#include <memory>

#include "apps/xct/system_matrix.hpp"
#include "core/dense.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel::xct {

template <typename ValueType>
class DeviceOperator {
public:
    /// Uploads both matrices to device 0. Throws NotCompiled (no CUDA in this build),
    /// CudaError (no device, not enough device memory).
    DeviceOperator(const TiledEll<ValueType, Index>& a, const TiledEll<ValueType, Index>& at);
    ~DeviceOperator();
    DeviceOperator(const DeviceOperator&) = delete;
    DeviceOperator& operator=(const DeviceOperator&) = delete;

    /// out := A·in (or Aᵀ·in): in uploaded, core's tiled ELL kernel on the device, out
    /// downloaded; device buffers are kept between calls of the same width. Throws CudaError.
    void multiply(bool transposed, const DenseMatrix<ValueType>& in, DenseMatrix<ValueType>& out,
                  int register_factor = 0);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tessel::xct
