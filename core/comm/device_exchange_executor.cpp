// Exchange steps on device buffers: gather kernel, optional copy to pinned memory, the MPI
// messages of ExchangeExecutor, and row sums grouped by target on the device.
#include "core/comm/device_exchange_executor.hpp"

#include <string>

#include "core/comm/row_sum_table.hpp"
#include "core/cuda/row_sums.hpp"
#include "core/error.hpp"

namespace tessel::comm {

namespace {

cuda::DeviceBuffer<size_type> upload(const std::vector<size_type>& host, cudaStream_t stream) {
    return cuda::DeviceBuffer<size_type>(host.data(), static_cast<size_type>(host.size()), stream);
}

// Grows a device buffer to at least `count` elements (contents dropped).
template <typename V>
void grow(cuda::DeviceBuffer<V>& buffer, size_type count) {
    if (buffer.size() < count) buffer = cuda::DeviceBuffer<V>(count);
}

}  // namespace

template <typename V>
DeviceExchangeExecutor<V>::DeviceExchangeExecutor(MPI_Comm comm, ExchangePlan plan,
                                                  const Topology& topology, ExchangeMethod method,
                                                  DeviceStaging staging, cudaStream_t stream)
    : host_(comm, std::move(plan), topology, method), staging_(staging), stream_(stream) {
    for (const auto& st : host_.plan().steps) {
        DeviceStep d;
        d.send_rows = upload(st.send_rows, stream_);
        const auto self = group_by_target(st.out_rows, st.self_out, st.self_in);
        d.self_rows = upload(self.rows, stream_);
        d.self_ptr = upload(self.ptr, stream_);
        d.self_sources = upload(self.sources, stream_);
        d.self_targets = self.targets();
        const auto recv = group_by_target(st.out_rows, st.recv_rows);
        d.recv_rows = upload(recv.rows, stream_);
        d.recv_ptr = upload(recv.ptr, stream_);
        d.recv_sources = upload(recv.sources, stream_);
        d.recv_targets = recv.targets();
        steps_.push_back(std::move(d));
    }
    // The uploads read pageable vectors that are freed on return.
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <typename V>
void DeviceExchangeExecutor<V>::start(int step, DenseView<const V> in, DenseView<V> out,
                                      Pending& pending) {
    TESSEL_ENSURE_DIMS(step >= 0 && step < num_steps(), "exchange: no step " + std::to_string(step));
    TESSEL_ENSURE_DIMS(!pending.active(), "exchange: this Pending is still in flight");
    const auto& st = plan().steps[step];
    const auto& d = steps_[step];
    const size_type w = in.cols;
    TESSEL_ENSURE_DIMS(in.rows == st.in_rows && out.rows == st.out_rows && out.cols == w,
                       "device exchange step " + std::to_string(step) + ": buffers are " +
                           std::to_string(in.rows) + "x" + std::to_string(in.cols) + " and " +
                           std::to_string(out.rows) + "x" + std::to_string(out.cols) +
                           ", plan needs " + std::to_string(st.in_rows) + " and " +
                           std::to_string(st.out_rows) + " rows of one width");
    const size_type sent = st.rows_sent() * w, received = st.rows_received() * w;
    grow(pending.send_, sent);
    grow(pending.recv_, received);
    pending.out_ = out;
    cuda::device::gather_rows(in, d.send_rows.data(), st.rows_sent(), pending.send_.data(), stream_);
    V* send = pending.send_.data();
    V* recv = pending.recv_.data();
    if (staging_ == DeviceStaging::host) {
        pending.send_host_.reserve(sent);
        pending.recv_host_.reserve(received);
        if (sent > 0)
            TESSEL_CUDA_CHECK(cudaMemcpyAsync(pending.send_host_.data(), pending.send_.data(),
                                              sent * sizeof(V), cudaMemcpyDeviceToHost, stream_));
        send = pending.send_host_.data();
        recv = pending.recv_host_.data();
    }
    // MPI reads the send buffer and writes the receive buffer outside the stream's order:
    // everything enqueued so far (the packing, and any earlier use of these buffers) must be done.
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream_));
    host_.post(step, w, send, recv, pending.messages_);
    // The rows that stay, while the messages travel.
    cuda::device::fill_zero(out, stream_);
    cuda::device::add_row_sums(in, d.self_rows.data(), d.self_ptr.data(), d.self_sources.data(),
                               d.self_targets, out, stream_);
}

template <typename V>
void DeviceExchangeExecutor<V>::finish(Pending& pending) {
    if (!pending.active()) return;
    const int step = pending.messages_.step();
    const size_type w = pending.messages_.width();
    const auto& st = plan().steps[step];
    const auto& d = steps_[step];
    host_.wait(pending.messages_);
    const size_type received = st.rows_received() * w;
    if (staging_ == DeviceStaging::host && received > 0)
        TESSEL_CUDA_CHECK(cudaMemcpyAsync(pending.recv_.data(), pending.recv_host_.data(),
                                          received * sizeof(V), cudaMemcpyHostToDevice, stream_));
    cuda::device::add_row_sums(DenseView<const V>(pending.recv_.data(), st.rows_received(), w),
                               d.recv_rows.data(), d.recv_ptr.data(), d.recv_sources.data(),
                               d.recv_targets, pending.out_, stream_);
}

template <typename V>
void DeviceExchangeExecutor<V>::run_step(int step, DenseView<const V> in, DenseView<V> out) {
    start(step, in, out, blocking_);
    finish(blocking_);
}

template class DeviceExchangeExecutor<float>;
template class DeviceExchangeExecutor<double>;

}  // namespace tessel::comm
