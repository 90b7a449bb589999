// Device-resident A and Aᵀ through core's device API (core/cuda/device_spmm.hpp).
#include "apps/xct/device_operator.hpp"

#include "core/error.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/device_spmm.hpp"
#endif

namespace tessel::xct {

#if defined(TESSEL_HAVE_CUDA)

template <typename V>
struct DeviceOperator<V>::Impl {
    cuda::DeviceTiledEll<V, Index> a, at;
    cuda::DeviceDense<V> in[2], out[2];  // per direction, reallocated when K changes
};

template <typename V>
DeviceOperator<V>::DeviceOperator(const TiledEll<V, Index>& a, const TiledEll<V, Index>& at)
    : impl_(std::make_unique<Impl>()) {
    impl_->a = cuda::DeviceTiledEll<V, Index>(a);
    impl_->at = cuda::DeviceTiledEll<V, Index>(at);
}

template <typename V>
void DeviceOperator<V>::multiply(bool transposed, const DenseMatrix<V>& in, DenseMatrix<V>& out, int register_factor) {
    const auto& m = transposed ? impl_->at : impl_->a;
    auto& din = impl_->in[transposed ? 1 : 0];
    auto& dout = impl_->out[transposed ? 1 : 0];
    const size_type k = in.cols();
    if (din.rows() != m.cols() || din.cols() != k) din = cuda::DeviceDense<V>(m.cols(), k);
    if (dout.rows() != m.rows() || dout.cols() != k) dout = cuda::DeviceDense<V>(m.rows(), k);
    if (out.rows() != m.rows() || out.cols() != k) out = DenseMatrix<V>(m.rows(), k);
    din.upload(in.view());
    cuda::device::spmm_tiled_ell(m, din.view(), dout.view(), Epilogue<V>{}, register_factor);
    dout.download(out.view());
}

#else

template <typename V>
struct DeviceOperator<V>::Impl {};

template <typename V>
DeviceOperator<V>::DeviceOperator(const TiledEll<V, Index>&, const TiledEll<V, Index>&) {
    TESSEL_THROW(NotCompiled, "the cuda backend is not in this build (configure with TESSEL_ENABLE_CUDA=ON)");
}

template <typename V>
void DeviceOperator<V>::multiply(bool, const DenseMatrix<V>&, DenseMatrix<V>&, int) {
    TESSEL_THROW(NotCompiled, "the cuda backend is not in this build");
}

#endif

template <typename V>
DeviceOperator<V>::~DeviceOperator() = default;

template class DeviceOperator<float>;
template class DeviceOperator<double>;

}  // namespace tessel::xct
