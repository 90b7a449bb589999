// Device sender-multiplies SpMM: the local operator (device-resident) on the stream, exchange steps on
// device buffers, the global step of minibatch i in flight while the GPU computes i + 1.
#include "core/dist/device_sender_multiplies_spmm.hpp"

#include <algorithm>

#include "core/instantiate.hpp"

namespace tessel::dist {

namespace {
SpmmOperatorConfig device_config(SpmmOperatorConfig config) {
    config.backend = Backend::cuda;
    return config;
}
}  // namespace

template <typename V, typename I>
DeviceSenderMultipliesSpmm<V, I>::DeviceSenderMultipliesSpmm(
    MPI_Comm data_comm, const comm::Topology& topology, std::vector<size_type> row_offsets,
    std::vector<size_type> col_offsets, size_type k_begin, size_type k_end, Csr<V, I> local_a,
    comm::ExchangePlan plan, const DistOptions& options)
    : SenderMultipliesBase<V, I, comm::DeviceExchangeExecutor<V>>(
          data_comm, topology, row_offsets, col_offsets, k_begin, k_end, local_a, std::move(plan),
          options, comm::choose_device_staging(options.cuda_aware)),
      a_(std::move(local_a), device_config(options.local)) {}

template <typename V, typename I>
void DeviceSenderMultipliesSpmm<V, I>::wait_for_stream(Pending* in_flight) {
    auto timing = this->times_.scope("compute");
    bool messages_done = in_flight == nullptr;
    for (;;) {
        const cudaError_t status = cudaStreamQuery(stream());
        if (status == cudaSuccess) return;
        if (status != cudaErrorNotReady) TESSEL_CUDA_CHECK(status);
        if (messages_done) break;
        messages_done = this->executor_.test(*in_flight);
    }
    cuda::synchronize_stream(stream());
}

template <typename V, typename I>
void DeviceSenderMultipliesSpmm<V, I>::multiply_device(DenseView<const V> b, DenseView<V> c) {
    multiply_device(b, c, stream());
    auto timing = this->times_.scope("global");
    cuda::synchronize_stream(stream());  // the last sums into C
}

template <typename V, typename I>
void DeviceSenderMultipliesSpmm<V, I>::multiply_device(DenseView<const V> b, DenseView<V> c, cudaStream_t after) {
    const auto& br = this->b_ranges_[0];
    const auto& cr = this->c_ranges_[0];
    TESSEL_ENSURE_DIMS(b.rows == br.rows() && b.cols == br.cols() && c.rows == cr.rows() &&
                           c.cols == cr.cols() && b.layout == Layout::row_major &&
                           c.layout == Layout::row_major,
                       "device sender-multiplies: B is " + std::to_string(b.rows) + "x" +
                           std::to_string(b.cols) + ", C " + std::to_string(c.rows) + "x" +
                           std::to_string(c.cols) + "; this rank holds B " +
                           std::to_string(br.rows()) + "x" + std::to_string(br.cols()) + " and C " +
                           std::to_string(cr.rows()) + "x" + std::to_string(cr.cols()) +
                           ", row-major");
    const auto& pl = this->executor_.plan();
    level_buffers_.resize(pl.steps.size());
    for (std::size_t s = 0; s < pl.steps.size(); ++s)
        if (level_buffers_[s].size() < pl.steps[s].in_rows * this->minibatch_)
            level_buffers_[s] = cuda::DeviceBuffer<V>(pl.steps[s].in_rows * this->minibatch_, stream());
    if (after != stream()) {  // B's producers, on the caller's stream, before the local SpMM
        TESSEL_CUDA_CHECK(cudaEventRecord(inputs_ready_.get(), after));
        TESSEL_CUDA_CHECK(cudaStreamWaitEvent(stream(), inputs_ready_.get(), 0));
    }
    this->run_minibatches(
        [&](size_type k0, size_type w, Pending* in_flight) {
            // Enqueue the local SpMM; with a global step in flight, let MPI progress it until the
            // GPU is done. Without one, the first step's start() waits for the stream anyway.
            if (pl.in_rows() > 0)
                a_.multiply_device(DenseView<const V>(b.data + k0, b.rows, w, Layout::row_major, b.ld),
                                   DenseView<V>(level_buffers_[0].data(), pl.in_rows(), w), Epilogue<V>{},
                                   stream());
            if (in_flight) wait_for_stream(in_flight);
        },
        [&](int s) { return level_buffers_[s].data(); }, c);
    if (after != stream()) {  // the last sums into C, before C's consumers on the caller's stream
        TESSEL_CUDA_CHECK(cudaEventRecord(product_done_.get(), stream()));
        TESSEL_CUDA_CHECK(cudaStreamWaitEvent(after, product_done_.get(), 0));
    }
}

template <typename V, typename I>
void DeviceSenderMultipliesSpmm<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    this->prepare(b, c);
    const DenseMatrix<V>& bb = b.blocks[0];
    DenseMatrix<V>& cc = c.blocks[0];
    {
        auto timing = this->times_.scope("transfer");
        if (b_.rows() != bb.rows() || b_.cols() != bb.cols()) b_ = cuda::DeviceDense<V>(bb.rows(), bb.cols(), -1, stream());
        if (c_.rows() != cc.rows() || c_.cols() != cc.cols()) c_ = cuda::DeviceDense<V>(cc.rows(), cc.cols(), -1, stream());
        b_.upload(DenseView<const V>(bb.view()), stream());
    }
    multiply_device(b_.view(), c_.view(), stream());
    auto timing = this->times_.scope("transfer");
    c_.download(cc.view(), stream());  // waits for the last sums too
}

#define TESSEL_INSTANTIATE(V, I) template class DeviceSenderMultipliesSpmm<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
