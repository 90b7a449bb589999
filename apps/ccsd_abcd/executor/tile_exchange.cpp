// Non-blocking A distribution and C return between the ranks of the grid.
#include "apps/ccsd_abcd/executor/tile_exchange.hpp"

#include <algorithm>
#include <climits>
#include <type_traits>

#include "core/comm/mpi_check.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {
template <typename T>
MPI_Datatype mpi_type() {
    return std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
}
int checked_count(size_type n) {
    if (n > INT_MAX) TESSEL_INVALID_INPUT("MPI", 0, "a tile of " + std::to_string(n) + " values is too large for one MPI message");
    return static_cast<int>(n);
}
}  // namespace

template <typename T>
TileExchange<T>::TileExchange(const Problem& problem, const Plan& plan, int rank, MPI_Comm comm,
                              TileStore<T>& a, TileStore<T>& c_owned)
    : problem_(problem), plan_(plan), rank_(rank), a_(a), c_owned_(c_owned) {
    // Present from the start: the tiles this rank owns (all held tiles without MPI). Others
    // count only once received, even if a buffer is left over from an earlier run.
    const TileShape& as = problem.a_shape;
    a_present_.reset(new std::atomic<unsigned char>[static_cast<std::size_t>(as.nnz())]);
    for (size_type e = 0; e < as.nnz(); ++e) {
        const bool here = !a_[e].empty() &&
                          (comm == MPI_COMM_NULL || plan.grid.a_owner(as.row_of(e), as.col_idx()[e]) == rank);
        a_present_[e].store(here ? 1 : 0, std::memory_order_relaxed);
    }
    if (comm != MPI_COMM_NULL) {
        TESSEL_MPI_CHECK(MPI_Comm_dup(comm, &a_comm_));
        TESSEL_MPI_CHECK(MPI_Comm_dup(comm, &c_comm_));
        comm::return_error_codes(a_comm_);
        comm::return_error_codes(c_comm_);
        int size = 1;
        TESSEL_MPI_CHECK(MPI_Comm_size(comm, &size));
        counters_.a = comm::CommCounters(comm::Topology::flat(size), rank);
        counters_.c = comm::CommCounters(comm::Topology::flat(size), rank);
        int* tag_ub = nullptr;
        int flag = 0;
        MPI_Comm_get_attr(a_comm_, MPI_TAG_UB, &tag_ub, &flag);
        const size_type most = std::max(problem.a_shape.nnz(), plan.product.c_shape.nnz());
        if (flag && tag_ub && most > *tag_ub)
            TESSEL_INVALID_INPUT("MPI", 0, "the problem has " + std::to_string(most) +
                                           " tiles, more than this MPI's largest tag " + std::to_string(*tag_ub));
    }
}

template <typename T>
TileExchange<T>::~TileExchange() {
    // After an error the requests may still be live: cancel receives and leave the rest.
    for (auto& p : pending_)
        if (p.request != MPI_REQUEST_NULL) {
            MPI_Cancel(&p.request);
            MPI_Request_free(&p.request);
        }
    if (a_comm_ != MPI_COMM_NULL) MPI_Comm_free(&a_comm_);
    if (c_comm_ != MPI_COMM_NULL) MPI_Comm_free(&c_comm_);
}

template <typename T>
void TileExchange<T>::start() {
    const ProcessGrid& g = plan_.grid;
    const TileShape& as = problem_.a_shape;
    const TileShape& cs = plan_.product.c_shape;
    const Tiling& mt = problem_.m_tiling;
    const Tiling& kt = problem_.k_tiling;
    const Tiling& nt = problem_.n_tiling;
    const bool in_grid = rank_ < g.size();
    if (a_comm_ == MPI_COMM_NULL) {
        if (in_grid)
            for (auto pos : plan_.processes[rank_].a_needed)
                if (!ready(pos))
                    TESSEL_INVALID_INPUT("executor", 0, "A tile " + std::to_string(pos) + " is needed but not local (no MPI)");
        return;
    }
    if (!in_grid) return;
    const ProcessPlan& me = plan_.processes[rank_];
    // Receives: remote A tiles this rank needs, in order of first use.
    for (auto pos : me.a_needed) {
        const size_type i = as.row_of(pos), k = as.col_idx()[pos];
        const int owner = g.a_owner(i, k);
        if (owner == rank_) continue;
        a_[pos].resize(static_cast<std::size_t>(mt.size(i) * kt.size(k)));  // filled by the receive
        Pending p;
        p.position = pos;
        TESSEL_MPI_CHECK(MPI_Irecv(a_[pos].data(), checked_count(mt.size(i) * kt.size(k)), mpi_type<T>(), owner,
                           static_cast<int>(pos), a_comm_, &p.request));
        pending_.push_back(p);
        counters_.a.add_received(owner, mt.size(i) * kt.size(k) * static_cast<size_type>(sizeof(T)));
    }
    // Receives: C tiles this rank owns that others compute.
    for (const auto& other : plan_.processes) {
        if (other.rank == rank_) continue;
        for (const auto& b : other.blocks)
            for (auto pos : b.c_tiles) {
                const size_type i = cs.row_of(pos), c = cs.col_idx()[pos];
                if (g.c_owner(i, c) != rank_) continue;
                c_owned_[pos].resize(static_cast<std::size_t>(mt.size(i) * nt.size(c)));  // filled by the receive
                Pending p;
                TESSEL_MPI_CHECK(MPI_Irecv(c_owned_[pos].data(), checked_count(mt.size(i) * nt.size(c)), mpi_type<T>(),
                                   other.rank, static_cast<int>(pos), c_comm_, &p.request));
                pending_.push_back(p);
                counters_.c.add_received(other.rank, mt.size(i) * nt.size(c) * static_cast<size_type>(sizeof(T)));
            }
    }
    // Sends: own A tiles to every rank of the grid row that needs them, in its order of first
    // use, the ranks served round-robin so that everyone's first chunk leaves early.
    std::vector<std::vector<size_type>> queues;
    std::vector<int> dest;
    for (const auto& other : plan_.processes) {
        if (other.rank == rank_ || other.grid_row != me.grid_row) continue;
        std::vector<char> seen(static_cast<std::size_t>(as.nnz()), 0);
        std::vector<size_type> q;
        for (const auto& b : other.blocks)
            for (const auto& ch : b.chunks)
                for (auto pos : ch.a_tiles)
                    if (!seen[pos] && g.a_owner(as.row_of(pos), as.col_idx()[pos]) == rank_) {
                        seen[pos] = 1;
                        q.push_back(pos);
                    }
        if (!q.empty()) {
            queues.push_back(std::move(q));
            dest.push_back(other.rank);
        }
    }
    for (std::size_t step = 0;; ++step) {
        bool any = false;
        for (std::size_t d = 0; d < queues.size(); ++d) {
            if (step >= queues[d].size()) continue;
            any = true;
            const size_type pos = queues[d][step];
            const size_type count = static_cast<size_type>(a_[pos].size());
            Pending p;
            TESSEL_MPI_CHECK(MPI_Isend(a_[pos].data(), checked_count(count), mpi_type<T>(), dest[d], static_cast<int>(pos),
                               a_comm_, &p.request));
            pending_.push_back(p);
            counters_.a.add_sent(dest[d], count * static_cast<size_type>(sizeof(T)));
        }
        if (!any) break;
    }
}

template <typename T>
std::vector<MPI_Request> TileExchange<T>::pending_requests() const {
    std::vector<MPI_Request> reqs(pending_.size());
    for (std::size_t r = 0; r < pending_.size(); ++r) reqs[r] = pending_[r].request;
    return reqs;
}

template <typename T>
void TileExchange<T>::retire(int count, const std::vector<int>& done) {
    for (int d = 0; d < count; ++d) {
        auto& p = pending_[done[d]];
        if (p.position >= 0) a_present_[p.position].store(1, std::memory_order_release);
        p.request = MPI_REQUEST_NULL;
    }
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                  [](const Pending& p) { return p.request == MPI_REQUEST_NULL; }),
                   pending_.end());
}

template <typename T>
void TileExchange<T>::test_all() {
    if (pending_.empty()) return;
    std::vector<MPI_Request> reqs = pending_requests();
    std::vector<int> done(pending_.size());
    int outcount = 0;
    TESSEL_MPI_CHECK(MPI_Testsome(static_cast<int>(reqs.size()), reqs.data(), &outcount, done.data(), MPI_STATUSES_IGNORE));
    if (outcount == MPI_UNDEFINED || outcount == 0) return;
    retire(outcount, done);
}

template <typename T>
void TileExchange<T>::progress() {
    if (a_comm_ != MPI_COMM_NULL) test_all();
}

template <typename T>
void TileExchange<T>::wait_for(const std::vector<size_type>& positions) {
    auto missing = [&] {
        for (auto pos : positions)
            if (!ready(pos)) return true;
        return false;
    };
    if (!missing()) return;
    if (a_comm_ == MPI_COMM_NULL) TESSEL_INVALID_INPUT("executor", 0, "an A tile is needed but not local (no MPI)");
    Timer t;
    while (missing()) {
        std::vector<MPI_Request> reqs = pending_requests();
        std::vector<int> done(pending_.size());
        int outcount = 0;
        TESSEL_MPI_CHECK(MPI_Waitsome(static_cast<int>(reqs.size()), reqs.data(), &outcount, done.data(), MPI_STATUSES_IGNORE));
        if (outcount == MPI_UNDEFINED) TESSEL_THROW(MpiError, "waiting for A tiles that were never requested");
        retire(outcount, done);
    }
    counters_.wait_seconds += t.seconds();
}

template <typename T>
void TileExchange<T>::deliver_c(size_type pos, TileBuffer<T>&& tile) {
    const TileShape& cs = plan_.product.c_shape;
    const int owner = plan_.grid.c_owner(cs.row_of(pos), cs.col_idx()[pos]);
    if (owner == rank_ || c_comm_ == MPI_COMM_NULL) {
        c_owned_[pos] = std::move(tile);
        return;
    }
    c_outbox_.push_back(std::move(tile));
    const auto& buf = c_outbox_.back();
    Pending p;
    TESSEL_MPI_CHECK(MPI_Isend(buf.data(), checked_count(static_cast<size_type>(buf.size())), mpi_type<T>(), owner,
                       static_cast<int>(pos), c_comm_, &p.request));
    pending_.push_back(p);
    counters_.c.add_sent(owner, static_cast<size_type>(buf.size() * sizeof(T)));
}

template <typename T>
void TileExchange<T>::finish() {
    if (a_comm_ == MPI_COMM_NULL) return;
    std::vector<MPI_Request> reqs(pending_.size());
    for (std::size_t r = 0; r < pending_.size(); ++r) reqs[r] = pending_[r].request;
    TESSEL_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
    for (auto& p : pending_)
        if (p.position >= 0) a_present_[p.position].store(1, std::memory_order_release);
    pending_.clear();
    c_outbox_.clear();
}

template class TileExchange<double>;
template class TileExchange<float>;

}  // namespace tessel::abcd
