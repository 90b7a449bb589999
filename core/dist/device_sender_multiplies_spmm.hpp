// Sender-multiplies SpMM with everything on the GPU: A uploaded once, the local SpMM, the
// partial rows and their reductions in device memory; only the rows that leave the rank cross
// to the host (or none with a CUDA-aware MPI). MemXCT's multi-GPU scheme (Hidayetoglu 2021,
// section 3).
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/dist/device_sender_multiplies_spmm.hpp needs a build with the CUDA backend"
#endif

#include "core/comm/device_exchange_executor.hpp"
#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/dist/sender_multiplies_spmm.hpp"

namespace tessel::dist {

/// The device counterpart of SenderMultipliesSpmm: the same blocks, plan, minibatches and
/// counters. Per minibatch the local SpMM (core's operator, tiled ELL or CSR) is enqueued on the
/// operator's stream; while the GPU computes, the host lets MPI progress the global step of
/// the previous minibatch (pipelined). Messages are staged through pinned host memory unless
/// options.cuda_aware and the MPI is CUDA-aware (staging()).
template <typename ValueType, typename IndexType>
class DeviceSenderMultipliesSpmm final
    : public SenderMultipliesBase<ValueType, IndexType, comm::DeviceExchangeExecutor<ValueType>> {
public:
    /// Arguments as SenderMultipliesSpmm; uses the current CUDA device. Collective over
    /// data_comm. Throws DimensionMismatch, InvalidInput (plan), MpiError, CudaError.
    DeviceSenderMultipliesSpmm(MPI_Comm data_comm, const comm::Topology& topology,
                               std::vector<size_type> row_offsets,
                               std::vector<size_type> col_offsets, size_type k_begin,
                               size_type k_end, Csr<ValueType, IndexType> local_a,
                               comm::ExchangePlan plan, const DistOptions& options = {});

    /// Host blocks: B copied to the device, multiply_device, C copied back (phase "transfer").
    void multiply(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) override;
    /// C := A·B on device memory: `b` is this rank's block of B (b_ranges()[0]), `c` of C
    /// (c_ranges()[0]), both row-major with any leading dimension. Returns when C is complete.
    /// Throws DimensionMismatch, MpiError, CudaError.
    void multiply_device(DenseView<const ValueType> b, DenseView<ValueType> c);
    /// The same, ordered on the caller's stream `after`: the product starts once the work
    /// enqueued there so far is done (an event, no host wait), and work enqueued there after the
    /// return sees C complete. The host waits only where MPI needs it: before each step's
    /// messages are posted (their rows must have reached pinned memory, docs/xct.md), and while
    /// a pipelined minibatch's global step is in flight. `b` and `c` must live until `after`
    /// has passed the product.
    void multiply_device(DenseView<const ValueType> b, DenseView<ValueType> c, cudaStream_t after);

    comm::DeviceStaging staging() const { return this->executor_.staging(); }
    /// The stream the operator's work runs on.
    cudaStream_t stream() const { return this->executor_.stream(); }

private:
    using Pending = typename comm::DeviceExchangeExecutor<ValueType>::Pending;
    // Waits for the stream; meanwhile tests `in_flight` so that MPI progresses.
    void wait_for_stream(Pending* in_flight);

    SpmmOperator<ValueType, IndexType> a_;  // local A, resident on the device
    cuda::Event inputs_ready_, product_done_;  // the caller's stream -> stream() -> the caller's
    std::vector<cuda::DeviceBuffer<ValueType>> level_buffers_;
    cuda::DeviceDense<ValueType> b_, c_;  // multiply()'s copies of host blocks
};

}  // namespace tessel::dist
