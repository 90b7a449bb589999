// Plans for sparse row exchanges with local reduction: who sends which rows to whom and
// where the receiver adds them. Built by tessel::partition, run by ExchangeExecutor.
#pragma once

#include <vector>

#include "core/comm/topology.hpp"
#include "core/types.hpp"

namespace tessel::comm {

/// One exchange inside a communicator followed by a local sum. The input buffer has in_rows
/// rows, the output out_rows rows, both of the same width w (w = the K columns, or a minibatch
/// of them). The step computes
///   out := 0;  out[self_out[e]] += in[self_in[e]]  (rows that stay on this rank);
///   for every send peer q: rows in[send_rows[send_displ[q] .. send_displ[q+1])] go to q;
///   for every recv peer q: the j-th row received from q is added to out[recv_rows[recv_displ[q] + j]].
/// Peers are ranks of the communicator, ascending, never this rank itself.
struct ExchangeStep {
    /// Topology level the step is meant for (its peers share this rank's group there).
    int level = 0;
    size_type in_rows = 0;
    size_type out_rows = 0;
    std::vector<int> send_peers;
    std::vector<size_type> send_displ{0};
    std::vector<size_type> send_rows;
    std::vector<int> recv_peers;
    std::vector<size_type> recv_displ{0};
    std::vector<size_type> recv_rows;
    std::vector<size_type> self_in;
    std::vector<size_type> self_out;

    size_type rows_sent() const { return send_displ.back(); }
    size_type rows_received() const { return recv_displ.back(); }
};

/// A chain of steps; the output of step s is the input of step s + 1. A direct reduction has
/// one step at the global level; a hierarchical one a step per level (socket, node, global).
struct ExchangePlan {
    std::vector<ExchangeStep> steps;

    size_type in_rows() const { return steps.empty() ? 0 : steps.front().in_rows; }
    size_type out_rows() const { return steps.empty() ? 0 : steps.back().out_rows; }

    /// Checks sizes, row ranges, peer ranges (0 <= peer < comm_size, != rank, ascending) and the
    /// chaining of steps. Throws InvalidInput naming the step and the array.
    void validate(int comm_size, int rank) const;
};

/// Bytes this rank sends at each level of `topology` when the plan runs on rows of
/// `row_bytes` bytes (the prediction the executor's counters must match).
std::vector<size_type> planned_bytes_per_level(const ExchangePlan& plan, const Topology& topology,
                                               int rank, size_type row_bytes);

}  // namespace tessel::comm
