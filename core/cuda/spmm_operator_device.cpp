// The cuda half of the local SpMM operator: the matrix uploaded once, B and C device views
// (or host views copied through buffers kept while the shapes stay the same).
#include <cuda_runtime_api.h>

#include "core/cuda/device_spmm.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm.hpp"
#include "core/operator/spmm_operator.hpp"

namespace tessel {

template <typename V, typename I>
struct SpmmOperator<V, I>::Device {
    cuda::DeviceCsr<V, I> csr;
    cuda::DeviceTiledEll<V, I> tiled;
    cuda::DeviceDense<V> in, out;  // staging of host operands
};

template <typename V, typename I>
void SpmmOperator<V, I>::DeviceDeleter::operator()(Device* d) const {
    delete d;
}

template <typename V, typename I>
void SpmmOperator<V, I>::make_device() {
    device_.reset(new Device());
    if (format_ == SparseFormat::tiled_ell)
        device_->tiled = cuda::DeviceTiledEll<V, I>(tiled_);
    else
        device_->csr = cuda::DeviceCsr<V, I>(csr_);
    cuda::synchronize_stream(nullptr);  // uploads are ordered, not finished
}

template <typename V, typename I>
void SpmmOperator<V, I>::multiply_on_device(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                                            void* stream_ptr, bool host_operands) {
    auto stream = static_cast<cudaStream_t>(stream_ptr);
    if (c.rows == 0 || c.cols == 0) return;
    Device& d = *device_;
    if (host_operands) {
        if (d.in.rows() != b.rows || d.in.cols() != b.cols) d.in = cuda::DeviceDense<V>(b.rows, b.cols);
        if (d.out.rows() != c.rows || d.out.cols() != c.cols) d.out = cuda::DeviceDense<V>(c.rows, c.cols);
        d.in.upload(b, stream);
        if (ep.reads_output()) d.out.upload(DenseView<const V>(c), stream);
        multiply_on_device(d.in.view(), d.out.view(), ep, stream_ptr, false);
        d.out.download(c, stream);
        return;
    }
    if (format_ == SparseFormat::tiled_ell) {
        // The cuda kernel takes register factors 4..32; others (cpu's 1, 2, 12, 64) choose.
        const int r = config_.register_factor;
        const int factor = (r == 4 || r == 8 || r == 16 || r == 32) ? r : 0;
        last_register_factor_ = cuda::device::spmm_tiled_ell(d.tiled, b, c, ep, factor, stream).register_factor;
    } else if (choose_csr_algorithm(Backend::cuda, d.csr.average_row_length()) == SpmmAlgorithm::cuda_merge) {
        cuda::device::spmm_merge(d.csr, b, c, ep, stream);
    } else {
        cuda::device::spmm_warp_row(d.csr, b, c, ep, stream);
    }
}

template <typename V, typename I>
void SpmmOperator<V, I>::multiply_transposed_on_device(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                                                       void* stream_ptr, bool host_operands) {
    auto stream = static_cast<cudaStream_t>(stream_ptr);
    if (c.rows == 0 || c.cols == 0) return;
    Device& d = *device_;
    if (host_operands) {
        if (d.in.rows() != b.rows || d.in.cols() != b.cols) d.in = cuda::DeviceDense<V>(b.rows, b.cols);
        if (d.out.rows() != c.rows || d.out.cols() != c.cols) d.out = cuda::DeviceDense<V>(c.rows, c.cols);
        d.in.upload(b, stream);
        if (ep.reads_output()) d.out.upload(DenseView<const V>(c), stream);
        multiply_transposed_on_device(d.in.view(), d.out.view(), ep, stream_ptr, false);
        d.out.download(c, stream);
        return;
    }
    cuda::device::spmm_tiled_ell_transposed(d.tiled, b, c, ep, stream);
}

#define TESSEL_INSTANTIATE(V, I) template class SpmmOperator<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
