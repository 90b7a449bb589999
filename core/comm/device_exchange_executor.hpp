// Runs ExchangePlans on row buffers in GPU memory: rows are packed and summed on the device;
// only the rows that leave the rank cross to the host (staged, the default) or go to MPI as
// device pointers (CUDA-aware MPI, only when detected).
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/comm/device_exchange_executor.hpp needs a build with the CUDA backend"
#endif

#include <cuda_runtime_api.h>

#include <vector>

#include "core/comm/cuda_aware.hpp"
#include "core/comm/exchange_executor.hpp"
#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"

namespace tessel::comm {

/// The device counterpart of ExchangeExecutor: the same plan, the same messages and counters
/// (it drives an ExchangeExecutor for the MPI part), buffers in device memory. All device work
/// is ordered on the executor's own stream (stream(); callers enqueue the producers of `in` and
/// the consumers of `out` there); start() waits for the stream before it hands buffers to MPI,
/// and finish() returns with the sums enqueued, not done.
template <typename ValueType>
class DeviceExchangeExecutor {
public:
    /// One step in flight with its own device (and, staged, pinned host) buffers.
    class Pending {
    public:
        bool active() const { return messages_.active(); }

    private:
        friend class DeviceExchangeExecutor;
        typename ExchangeExecutor<ValueType>::Messages messages_;
        DenseView<ValueType> out_;
        cuda::DeviceBuffer<ValueType> send_, recv_;
        cuda::PinnedBuffer<ValueType> send_host_, recv_host_;
    };

    /// `staging` is what choose_device_staging() returned: cuda_aware hands device pointers to
    /// MPI. Uses the current CUDA device. Collective over `comm` (as ExchangeExecutor). Throws
    /// InvalidInput (plan), MpiError, CudaError.
    DeviceExchangeExecutor(MPI_Comm comm, ExchangePlan plan, const Topology& topology,
                           ExchangeMethod method, DeviceStaging staging);

    cudaStream_t stream() const { return stream_.get(); }
    const ExchangePlan& plan() const { return host_.plan(); }
    int num_steps() const { return host_.num_steps(); }
    DeviceStaging staging() const { return staging_; }

    /// Starts step `step` on device buffers: packs the leaving rows (and copies them to pinned
    /// host memory when staged), waits for the stream, posts the messages, and enqueues
    /// out := (sum of the rows that stay). `in` must stay valid until the stream has reached
    /// this point, `out` until finish(). Throws DimensionMismatch, MpiError, CudaError.
    void start(int step, DenseView<const ValueType> in, DenseView<ValueType> out, Pending& pending);
    /// Lets MPI progress without blocking; true when all the step's messages are done.
    bool test(Pending& pending) { return host_.test(pending.messages_); }
    /// Waits for the messages and enqueues out += (the rows received).
    void finish(Pending& pending);
    /// start + finish (the sums enqueued).
    void run_step(int step, DenseView<const ValueType> in, DenseView<ValueType> out);

    CommCounters& counters() { return host_.counters(); }
    const CommCounters& counters() const { return host_.counters(); }

private:
    // A step's row lists in device memory.
    struct DeviceStep {
        cuda::DeviceBuffer<size_type> send_rows;
        cuda::DeviceBuffer<size_type> self_rows, self_ptr, self_sources;
        cuda::DeviceBuffer<size_type> recv_rows, recv_ptr, recv_sources;
        size_type self_targets = 0, recv_targets = 0;
    };

    cuda::Stream stream_;  // first: destroyed after every buffer that work on it may use
    ExchangeExecutor<ValueType> host_;
    DeviceStaging staging_;
    std::vector<DeviceStep> steps_;
    // run_step's buffers: kept, because the sums enqueued on the stream still read them.
    Pending blocking_;
};

}  // namespace tessel::comm
