// Runs ExchangePlans on dense row buffers with non-blocking MPI: point-to-point
// (MPI_Isend/MPI_Irecv) or a neighbourhood collective (MPI_Ineighbor_alltoallv).
#pragma once

#include <mpi.h>

#include <string_view>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/comm/comm_counters.hpp"
#include "core/comm/exchange_plan.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/dense.hpp"

namespace tessel::comm {

/// How the messages of a step are handed to MPI.
enum class ExchangeMethod {
    point_to_point,      // one MPI_Isend / MPI_Irecv per peer
    neighbor_collective  // MPI_Ineighbor_alltoallv on a graph communicator per step
};

std::string_view to_string(ExchangeMethod method);
/// "p2p" or "neighbor"; throws InvalidInput otherwise.
ExchangeMethod parse_exchange_method(std::string_view name);

/// Executes one rank's ExchangePlan on row-major buffers of any width w (the same w for the
/// input and output of a step). Construction is collective over `comm` (it duplicates the
/// communicator, and builds one graph communicator per step for the neighbourhood method), so
/// every rank's plan must have the same number of steps. Bytes are counted per level when
/// handed to MPI (sent) and from the receive statuses (received, point-to-point).
template <typename ValueType>
class ExchangeExecutor {
public:
    /// The MPI half of one step in flight: requests and what the counters need. Executors
    /// whose rows live elsewhere (device memory: comm::DeviceExchangeExecutor) pack and add
    /// rows themselves and hand their buffers to post().
    class Messages {
    public:
        bool active() const { return step_ >= 0; }
        int step() const { return step_; }
        size_type width() const { return width_; }

    private:
        friend class ExchangeExecutor;
        int step_ = -1;
        bool completed_ = false;
        size_type width_ = 0;
        std::vector<MPI_Request> requests_;
        std::vector<MPI_Status> statuses_;  // kept: test() runs in polling loops
    };

    /// One step in flight: its own send/receive buffers and requests, so that several
    /// (for example consecutive minibatches) may be in flight at once.
    class Pending {
    public:
        bool active() const { return messages_.active(); }

    private:
        friend class ExchangeExecutor;
        Messages messages_;
        DenseView<ValueType> out_;
        std::vector<ValueType, AlignedAllocator<ValueType>> send_, recv_;
    };

    /// `topology` describes the ranks of `comm`. Throws InvalidInput (plan), MpiError.
    ExchangeExecutor(MPI_Comm comm, ExchangePlan plan, const Topology& topology,
                     ExchangeMethod method = ExchangeMethod::point_to_point);
    ~ExchangeExecutor();
    ExchangeExecutor(const ExchangeExecutor&) = delete;
    ExchangeExecutor& operator=(const ExchangeExecutor&) = delete;

    const ExchangePlan& plan() const { return plan_; }
    int num_steps() const { return static_cast<int>(plan_.steps.size()); }
    ExchangeMethod method() const { return method_; }

    /// Starts step `step`: posts the receives, packs and sends, and sets
    /// out := (the rows that stay here). `in` must stay valid only during the call, `out`
    /// until finish(). Throws DimensionMismatch (buffer shapes), MpiError.
    void start(int step, DenseView<const ValueType> in, DenseView<ValueType> out, Pending& pending);
    /// Lets MPI progress the step without blocking; true when all its messages are done.
    bool test(Pending& pending);
    /// Waits for the step and adds the received rows into `out`. Throws MpiError.
    void finish(Pending& pending);
    /// start + finish.
    void run_step(int step, DenseView<const ValueType> in, DenseView<ValueType> out);
    /// All steps, with intermediate buffers of the same width: out := plan(in).
    void run(DenseView<const ValueType> in, DenseView<ValueType> out);

    /// Throws DimensionMismatch unless `step` exists and `in` and `out` have its input and output
    /// rows, one width, row-major.
    void check_buffers(int step, DenseView<const ValueType> in, DenseView<const ValueType> out) const;
    /// Posts the messages of step `step` for rows of width w: receives into `recv` (the rows
    /// from each recv peer in turn, rows_received() x w, packed) and sends from `send`
    /// (rows_sent() x w, packed in send_rows order), counting the bytes sent. Both buffers must
    /// stay valid until wait(); with a CUDA-aware MPI they may be device pointers.
    /// Throws DimensionMismatch (a step or `messages` in flight), MpiError.
    void post(int step, size_type w, const ValueType* send, ValueType* recv, Messages& messages);
    /// Lets MPI progress without blocking; true when every message is done (bytes received are
    /// counted then).
    bool test(Messages& messages);
    /// Waits for every message and counts the bytes received; `messages` is free again.
    void wait(Messages& messages);

    CommCounters& counters() { return counters_; }
    const CommCounters& counters() const { return counters_; }

private:
    void account(Messages& messages);

    Communicator comm_;
    std::vector<Communicator> graphs_;  // neighbourhood method: one per step
    ExchangePlan plan_;
    ExchangeMethod method_;
    int rank_ = 0;
    CommCounters counters_;
    std::vector<ValueType, AlignedAllocator<ValueType>> scratch_[2];
};

}  // namespace tessel::comm
