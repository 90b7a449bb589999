// The MPI side of the executor: A tiles sent from their owners to the processes of their grid
// row that need them (only those), C tiles returned to their owners; all non-blocking, so that
// communication overlaps the tile GEMMs.
//
// Why not core's exchange plans (core/comm/exchange_plan.hpp): they move rows of a vector or
// matrix that is laid out once, in rounds whose buffers are packed and unpacked whole. Here
// every message is one tile of its own irregular size that arrives into its own buffer, is
// needed at a point of the executor's task list known only to this rank (the order of its
// chunks), and the C tiles go back while later blocks still compute; a round-based plan would
// either pack tiles into rounds (a copy of every tile and a wait for the slowest) or lose the
// overlap. So the exchange stays here, on core's MPI check and byte counters.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>
#include <vector>

#include "apps/ccsd_abcd/executor/tile_store.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "core/comm/comm_counters.hpp"

namespace tessel::abcd {

/// What actually moved between ranks, in core's counters (bytes and messages per topology
/// level; the levels are those of a flat topology, the exchange needs no more), A and C apart.
struct ExchangeCounters {
    comm::CommCounters a, c;
    double wait_seconds = 0;  ///< time spent blocked waiting for A tiles
    size_type a_sent() const { return a.total_sent_bytes(); }
    size_type c_sent() const { return c.total_sent_bytes(); }
    size_type a_received() const { return received(a); }
    size_type c_received() const { return received(c); }

private:
    static size_type received(const comm::CommCounters& k) {
        size_type total = 0;
        for (int l = 0; l < k.num_levels(); ++l) total += k.received_bytes(l);
        return total;
    }
};

/// One per rank of `comm` (collective construction: it duplicates `comm`). Ranks of comm at or
/// beyond the grid size take part without work. With comm = MPI_COMM_NULL (a single process)
/// nothing is sent and every tile must be local. Only the thread that initialised MPI calls it.
template <typename ValueType>
class TileExchange {
public:
    /// `a` holds this rank's own A tiles (2D-cyclic owner); received ones are added to it.
    /// `c_owned` receives every C tile this rank owns, computed here or elsewhere.
    TileExchange(const Problem& problem, const Plan& plan, int rank, MPI_Comm comm, TileStore<ValueType>& a,
                 TileStore<ValueType>& c_owned);
    ~TileExchange();
    TileExchange(const TileExchange&) = delete;
    TileExchange& operator=(const TileExchange&) = delete;

    /// Posts the receives of the remote A tiles this rank needs and of the C tiles it owns but
    /// does not compute, and sends its own A tiles to the ranks that need them (each rank's in
    /// the order of its first use).
    void start();
    /// Blocks until the A tiles at these positions are here. Throws MpiError.
    void wait_for(const std::vector<size_type>& a_positions);
    /// Lets MPI progress (tests every pending request); cheap, called between tile GEMMs.
    void progress();
    /// True once the A tile at `position` is here. Any thread may ask (the master thread sets
    /// it in progress() and wait_for()).
    bool ready(size_type position) const { return a_present_[position].load(std::memory_order_acquire) != 0; }
    /// Hands a finished C tile to its owner: kept when this rank owns it, else sent.
    void deliver_c(size_type c_position, TileBuffer<ValueType>&& tile);
    /// Waits for every send and receive to finish.
    void finish();

    const ExchangeCounters& counters() const { return counters_; }

private:
    struct Pending {
        MPI_Request request = MPI_REQUEST_NULL;
        size_type position = -1;  // A tile position for receives (to mark it arrived), -1 else
    };
    void test_all();
    /// The outstanding requests, in pending_'s order.
    std::vector<MPI_Request> pending_requests() const;
    /// The `count` requests at `done` finished: their A tiles are present, they leave pending_.
    void retire(int count, const std::vector<int>& done);

    const Problem& problem_;
    const Plan& plan_;
    int rank_;
    MPI_Comm a_comm_ = MPI_COMM_NULL, c_comm_ = MPI_COMM_NULL;
    TileStore<ValueType>& a_;
    TileStore<ValueType>& c_owned_;
    std::unique_ptr<std::atomic<unsigned char>[]> a_present_;  // by A position
    std::vector<Pending> pending_;                // outstanding requests
    std::vector<TileBuffer<ValueType>> c_outbox_;  // C tiles in flight to their owners
    ExchangeCounters counters_;
};

}  // namespace tessel::abcd
