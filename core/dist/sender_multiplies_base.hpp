// What the host and device sender-multiplies SpMMs share: the checks of their arguments, the
// blocks a rank holds, and the minibatch loop with its pipelining (Hidayetoglu 2021, 3.2-3.4).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/comm/exchange_plan.hpp"
#include "core/comm/topology.hpp"
#include "core/dist/dist_spmm.hpp"

namespace tessel::dist {

/// options.minibatch rounded up to a multiple of cpu::choose_register_factor(minibatch), clamped
/// to [1, k]; 0 means k.
size_type round_minibatch(size_type requested, size_type k);

/// The blocks data rank d of `data_comm` holds (A(:, cols_d), B(cols_d, k range), C(rows_d,
/// k range)) after checking the offsets, the k range, local A and the plan against each other.
/// Throws DimensionMismatch.
struct SenderMultipliesShape {
    BlockRange a, b, c;
};
template <typename ValueType, typename IndexType>
SenderMultipliesShape sender_multiplies_shape(MPI_Comm data_comm,
                                              const std::vector<size_type>& row_offsets,
                                              const std::vector<size_type>& col_offsets,
                                              size_type k_begin, size_type k_end,
                                              const Csr<ValueType, IndexType>& local_a,
                                              const comm::ExchangePlan& plan);

/// Base of SenderMultipliesSpmm (Executor = comm::ExchangeExecutor) and
/// DeviceSenderMultipliesSpmm (comm::DeviceExchangeExecutor): both executors start, test and
/// finish steps on views of their own memory.
template <typename ValueType, typename IndexType, typename Executor>
class SenderMultipliesBase : public DistSpmm<ValueType, IndexType> {
public:
    DistAlgorithm algorithm() const override {
        return executor_.plan().steps.size() > 1 ? DistAlgorithm::sm_hierarchical
                                                 : DistAlgorithm::sm_direct;
    }
    /// The minibatch width that runs: options.minibatch rounded up to a multiple of the cpu
    /// register factor, at most the local k (0 or more than k: all of k).
    size_type minibatch() const { return minibatch_; }
    const comm::ExchangePlan& plan() const { return executor_.plan(); }
    void reset_stats() override {
        executor_.counters().reset();
        DistSpmm<ValueType, IndexType>::reset_stats();
    }

protected:
    /// Builds the executor (collective over data_comm) with `extra` after its usual arguments,
    /// then checks the shapes (sender_multiplies_shape).
    template <typename... Extra>
    SenderMultipliesBase(MPI_Comm data_comm, const comm::Topology& topology,
                         const std::vector<size_type>& row_offsets,
                         const std::vector<size_type>& col_offsets, size_type k_begin,
                         size_type k_end, const Csr<ValueType, IndexType>& local_a,
                         comm::ExchangePlan plan, const DistOptions& options, Extra&&... extra)
        : executor_(data_comm, std::move(plan), topology, options.method,
                    std::forward<Extra>(extra)...),
          options_(options) {
        const auto shape = sender_multiplies_shape(data_comm, row_offsets, col_offsets, k_begin,
                                                   k_end, local_a, executor_.plan());
        this->a_ranges_ = {shape.a};
        this->b_ranges_ = {shape.b};
        this->c_ranges_ = {shape.c};
        k_local_ = k_end - k_begin;
        minibatch_ = round_minibatch(options_.minibatch, k_local_);
        this->counters_ = executor_.counters();
    }

    /// The minibatches of C := A·B. For each column range [k0, k0 + w):
    ///   compute(k0, w, in_flight) fills level(0) with the partial rows (in_rows x w), testing
    ///     `in_flight` (the previous global step, or null) so that MPI progresses;
    ///   steps 0 .. L-2 run blocking from level(s) into level(s + 1);
    ///   the last step starts from level(L-1) into c's columns; with options.pipelined it is
    ///     finished after the next minibatch's compute and local steps, else at once.
    /// level(s) returns the buffer of step s's input, room for in_rows x minibatch().
    template <typename Compute, typename Level>
    void run_minibatches(Compute&& compute, Level&& level, DenseView<ValueType> c) {
        using Pending = typename Executor::Pending;
        const auto& pl = executor_.plan();
        const int steps = static_cast<int>(pl.steps.size());
        int previous = -1;  // slot of the minibatch still in flight
        int slot = 0;
        for (size_type k0 = 0; k0 < k_local_; k0 += minibatch_) {
            const size_type w = std::min(minibatch_, k_local_ - k0);
            compute(k0, w, previous >= 0 ? &pending_[previous] : static_cast<Pending*>(nullptr));
            {
                auto timing = this->times_.scope("local");
                for (int s = 0; s + 1 < steps; ++s)
                    executor_.run_step(s, DenseView<const ValueType>(level(s), pl.steps[s].in_rows, w),
                                       DenseView<ValueType>(level(s + 1), pl.steps[s].out_rows, w));
            }
            auto timing = this->times_.scope("global");
            DenseView<ValueType> c_cols(c.data + k0, c.rows, w, Layout::row_major, c.ld);
            executor_.start(steps - 1,
                            DenseView<const ValueType>(level(steps - 1), pl.steps.back().in_rows, w),
                            c_cols, pending_[slot]);
            if (!options_.pipelined) {
                executor_.finish(pending_[slot]);
                continue;
            }
            if (previous >= 0) executor_.finish(pending_[previous]);
            previous = slot;
            slot = 1 - slot;
        }
        if (previous >= 0) {
            auto timing = this->times_.scope("global");
            executor_.finish(pending_[previous]);
        }
        this->counters_ = executor_.counters();
    }

    Executor executor_;
    DistOptions options_;
    size_type k_local_ = 0, minibatch_ = 0;
    typename Executor::Pending pending_[2];
};

}  // namespace tessel::dist
