// Device sender-multiplies SpMM: merge-based local SpMM on the stream, exchange steps on
// device buffers, the global step of minibatch i in flight while the GPU computes i + 1.
#include "core/dist/device_sender_multiplies_spmm.hpp"

#include <algorithm>

#include "core/instantiate.hpp"

namespace tessel::dist {

template <typename V, typename I>
DeviceSenderMultipliesSpmm<V, I>::DeviceSenderMultipliesSpmm(
    MPI_Comm data_comm, const comm::Topology& topology, std::vector<size_type> row_offsets,
    std::vector<size_type> col_offsets, size_type k_begin, size_type k_end, Csr<V, I> local_a,
    comm::ExchangePlan plan, const DistOptions& options)
    : SenderMultipliesBase<V, I>(data_comm, row_offsets, col_offsets, k_begin, k_end, local_a,
                                 plan, options),
      executor_(data_comm, std::move(plan), topology, options.method,
                comm::choose_device_staging(options.cuda_aware), stream_.get()),
      a_(local_a, stream_.get()) {
    stream_.synchronize();  // the upload reads local_a, freed on return
    this->counters_ = executor_.counters();
}

template <typename V, typename I>
void DeviceSenderMultipliesSpmm<V, I>::reset_stats() {
    executor_.counters().reset();
    DistSpmm<V, I>::reset_stats();
}

template <typename V, typename I>
void DeviceSenderMultipliesSpmm<V, I>::wait_for_stream(Pending* in_flight) {
    auto timing = this->times_.scope("compute");
    bool messages_done = in_flight == nullptr;
    for (;;) {
        const cudaError_t status = cudaStreamQuery(stream_.get());
        if (status == cudaSuccess) return;
        if (status != cudaErrorNotReady) TESSEL_CUDA_CHECK(status);
        if (messages_done) break;
        messages_done = executor_.test(*in_flight);
    }
    stream_.synchronize();
}

template <typename V, typename I>
void DeviceSenderMultipliesSpmm<V, I>::multiply_device(DenseView<const V> b, DenseView<V> c) {
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
    const auto& pl = executor_.plan();
    const int steps = static_cast<int>(pl.steps.size());
    const size_type k_local = this->k_local_, minibatch = this->minibatch_;
    const cudaStream_t stream = stream_.get();
    // Input of step s is level_buffers_[s]; the last step writes into C's columns.
    level_buffers_.resize(steps);
    for (int s = 0; s < steps; ++s)
        if (level_buffers_[s].size() < pl.steps[s].in_rows * minibatch)
            level_buffers_[s] = cuda::DeviceBuffer<V>(pl.steps[s].in_rows * minibatch);
    int previous = -1;  // slot of the minibatch still in flight
    int slot = 0;
    for (size_type k0 = 0; k0 < k_local; k0 += minibatch) {
        const size_type w = std::min(minibatch, k_local - k0);
        DenseView<const V> b_cols(b.data + k0, b.rows, w, Layout::row_major, b.ld);
        DenseView<V> partial(level_buffers_[0].data(), pl.in_rows(), w);
        if (partial.rows > 0 && w > 0) cuda::device::spmm_merge(a_, b_cols, partial, Epilogue<V>{}, stream);
        wait_for_stream(previous >= 0 ? &pending_[previous] : nullptr);
        {
            auto timing = this->times_.scope("local");
            for (int s = 0; s + 1 < steps; ++s)
                executor_.run_step(s, DenseView<const V>(level_buffers_[s].data(), pl.steps[s].in_rows, w),
                                   DenseView<V>(level_buffers_[s + 1].data(), pl.steps[s].out_rows, w));
        }
        auto timing = this->times_.scope("global");
        DenseView<V> c_cols(c.data + k0, c.rows, w, Layout::row_major, c.ld);
        executor_.start(steps - 1,
                        DenseView<const V>(level_buffers_[steps - 1].data(), pl.steps.back().in_rows, w),
                        c_cols, pending_[slot]);
        if (!this->options_.pipelined) {
            executor_.finish(pending_[slot]);
            continue;
        }
        if (previous >= 0) executor_.finish(pending_[previous]);
        previous = slot;
        slot = 1 - slot;
    }
    {
        auto timing = this->times_.scope("global");
        if (previous >= 0) executor_.finish(pending_[previous]);
        stream_.synchronize();
    }
    this->counters_ = executor_.counters();
}

template <typename V, typename I>
void DeviceSenderMultipliesSpmm<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    this->prepare(b, c);
    const DenseMatrix<V>& bb = b.blocks[0];
    DenseMatrix<V>& cc = c.blocks[0];
    {
        auto timing = this->times_.scope("transfer");
        if (b_.rows() != bb.rows() || b_.cols() != bb.cols()) b_ = cuda::DeviceDense<V>(bb.rows(), bb.cols());
        if (c_.rows() != cc.rows() || c_.cols() != cc.cols()) c_ = cuda::DeviceDense<V>(cc.rows(), cc.cols());
        b_.upload(DenseView<const V>(bb.view()), stream_.get());
    }
    multiply_device(b_.view(), c_.view());
    auto timing = this->times_.scope("transfer");
    c_.download(cc.view(), stream_.get());
}

#define TESSEL_INSTANTIATE(V, I) template class DeviceSenderMultipliesSpmm<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
