// Exchange steps on device buffers: gather kernel, optional copy to pinned memory, the MPI
// messages of ExchangeExecutor, and row sums grouped by target on the device.
#include "core/comm/device_exchange_executor.hpp"

#include <string>

#include "core/comm/row_sum_table.hpp"
#include "core/cuda/kernels/row_sums.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/error.hpp"

namespace tessel::comm {

namespace {

cuda::DeviceBuffer<size_type> upload(const std::vector<size_type>& host, cudaStream_t stream) {
    return cuda::DeviceBuffer<size_type>(host.data(), static_cast<size_type>(host.size()), stream);
}

// Grows a device buffer to at least `count` elements (contents dropped), in `stream`'s order:
// the old one is freed after the stream's work that used it, without a device-wide wait.
template <typename V>
void grow(cuda::DeviceBuffer<V>& buffer, size_type count, cudaStream_t stream) {
    if (buffer.size() < count) buffer = cuda::DeviceBuffer<V>(count, stream);
}

}  // namespace

template <typename V>
DeviceExchangeExecutor<V>::DeviceExchangeExecutor(MPI_Comm comm, ExchangePlan plan,
                                                  const Topology& topology, ExchangeMethod method,
                                                  DeviceStaging staging)
    : host_(comm, std::move(plan), topology, method), staging_(staging) {
    for (const auto& st : host_.plan().steps) {
        DeviceStep d;
        d.send_rows = upload(st.send_rows, stream());
        const auto self = group_by_target(st.out_rows, st.self_out, st.self_in);
        d.self_rows = upload(self.rows, stream());
        d.self_ptr = upload(self.ptr, stream());
        d.self_sources = upload(self.sources, stream());
        d.self_targets = self.targets();
        const auto recv = group_by_target(st.out_rows, st.recv_rows);
        d.recv_rows = upload(recv.rows, stream());
        d.recv_ptr = upload(recv.ptr, stream());
        d.recv_sources = upload(recv.sources, stream());
        d.recv_targets = recv.targets();
        steps_.push_back(std::move(d));
    }
    // The uploads read pageable vectors that are freed on return.
    stream_.synchronize();
}

template <typename V>
void DeviceExchangeExecutor<V>::start(int step, DenseView<const V> in, DenseView<V> out,
                                      Pending& pending) {
    TESSEL_ENSURE_DIMS(!pending.active(), "exchange: this Pending is still in flight");
    host_.check_buffers(step, in, out);
    const auto& st = plan().steps[step];
    const auto& d = steps_[step];
    const size_type w = in.cols;
    const size_type sent = st.rows_sent() * w, received = st.rows_received() * w;
    grow(pending.send_, sent, stream());
    grow(pending.recv_, received, stream());
    pending.out_ = out;
    cuda::device::gather_rows(in, d.send_rows.data(), st.rows_sent(), pending.send_.data(), stream());
    V* send = pending.send_.data();
    V* recv = pending.recv_.data();
    if (staging_ == DeviceStaging::host) {
        pending.send_host_.reserve(sent);
        pending.recv_host_.reserve(received);
        if (sent > 0)
            cuda::copy_to_host(pending.send_host_.data(), pending.send_.data(), sent * sizeof(V), stream());
        send = pending.send_host_.data();
        recv = pending.recv_host_.data();
    }
    // MPI reads the send buffer and writes the receive buffer outside the stream's order:
    // everything enqueued so far (the packing, and any earlier use of these buffers) must be done.
    cuda::synchronize_stream(stream());
    host_.post(step, w, send, recv, pending.messages_);
    // The rows that stay, while the messages travel.
    cuda::device::fill_zero(out, stream());
    cuda::device::add_row_sums(in, d.self_rows.data(), d.self_ptr.data(), d.self_sources.data(),
                               d.self_targets, out, stream());
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
        cuda::copy_to_device(pending.recv_.data(), pending.recv_host_.data(), received * sizeof(V), stream());
    cuda::device::add_row_sums(DenseView<const V>(pending.recv_.data(), st.rows_received(), w),
                               d.recv_rows.data(), d.recv_ptr.data(), d.recv_sources.data(),
                               d.recv_targets, pending.out_, stream());
}

template <typename V>
void DeviceExchangeExecutor<V>::run_step(int step, DenseView<const V> in, DenseView<V> out) {
    start(step, in, out, blocking_);
    finish(blocking_);
}

template class DeviceExchangeExecutor<float>;
template class DeviceExchangeExecutor<double>;

}  // namespace tessel::comm
