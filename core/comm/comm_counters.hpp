// Bytes and messages per topology level, counted where the data is handed to MPI.
#pragma once

#include <mpi.h>

#include <vector>

#include "core/comm/topology.hpp"
#include "core/types.hpp"

namespace tessel::comm {

/// Counts what one rank sends and receives, classified by Topology::level_of(me, peer).
/// Point-to-point and one-sided calls count the payload they pass to MPI; collectives count
/// their logical payload per destination (for a broadcast, the root's block once per other
/// member), not the traffic of the algorithm MPI picks inside. Messages to self are counted
/// apart (self_bytes) and never as network traffic.
class CommCounters {
public:
    CommCounters() = default;
    /// `topology` describes the ranks of the communicator whose ranks are passed to add_*.
    CommCounters(Topology topology, int my_rank);

    void add_sent(int peer, size_type bytes);
    void add_received(int peer, size_type bytes);
    void reset();

    const Topology& topology() const { return topology_; }
    int num_levels() const { return topology_.num_levels(); }
    size_type sent_bytes(int level) const { return sent_bytes_.at(level); }
    size_type sent_messages(int level) const { return sent_messages_.at(level); }
    size_type received_bytes(int level) const { return received_bytes_.at(level); }
    size_type received_messages(int level) const { return received_messages_.at(level); }
    size_type self_bytes() const { return self_bytes_; }
    /// Bytes sent at levels above "node" (Topology::is_inter_node).
    size_type inter_node_bytes() const;
    size_type total_sent_bytes() const;

    /// The element-wise sum of every rank's counters over `comm` (collective; all ranks get it).
    /// Throws MpiError.
    CommCounters summed(MPI_Comm comm) const;
    /// Adds another rank's or another run's counters (same levels).
    CommCounters& operator+=(const CommCounters& other);

private:
    Topology topology_;
    int me_ = 0;
    std::vector<size_type> sent_bytes_{0}, sent_messages_{0};
    std::vector<size_type> received_bytes_{0}, received_messages_{0};
    size_type self_bytes_ = 0;
};

}  // namespace tessel::comm
