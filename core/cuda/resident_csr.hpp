// A CSR matrix kept on the GPU for repeated products with host operands: the host-level cuda
// SpMM copies A to the device on every call, this copies it once (B in and C out per call,
// through device buffers kept while the shapes stay the same).
// Declared in every build; without CUDA the constructor throws NotCompiled.
#pragma once

#include <memory>

#include "core/dense.hpp"
#include "core/formats/csr.hpp"

namespace tessel::cuda {

template <typename ValueType, typename IndexType>
class ResidentCsr {
public:
    /// Uploads `a` to the current device. Throws CudaError, NotCompiled.
    explicit ResidentCsr(const Csr<ValueType, IndexType>& a);
    ~ResidentCsr();
    ResidentCsr(ResidentCsr&&) noexcept;
    ResidentCsr& operator=(ResidentCsr&&) noexcept;

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    /// C := A·B with host B and C (row-major): B copied in, the merge-based kernel, C copied
    /// back. Throws DimensionMismatch, CudaError.
    void spmm(DenseView<const ValueType> b, DenseView<ValueType> c);

private:
    struct Device;
    std::unique_ptr<Device> device_;
    size_type rows_ = 0, cols_ = 0;
};

}  // namespace tessel::cuda
