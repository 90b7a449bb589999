// Exchange steps: pack rows, non-blocking sends/receives (or a neighbourhood collective),
// add the rows that stay and, on completion, the rows that arrived.
#include "core/comm/exchange_executor.hpp"

#include <algorithm>
#include <string>

#include "core/comm/mpi_check.hpp"
#include "core/error.hpp"

namespace tessel::comm {

std::string_view to_string(ExchangeMethod method) {
    return method == ExchangeMethod::point_to_point ? "p2p" : "neighbor";
}

ExchangeMethod parse_exchange_method(std::string_view name) {
    if (name == "p2p") return ExchangeMethod::point_to_point;
    if (name == "neighbor") return ExchangeMethod::neighbor_collective;
    TESSEL_INVALID_INPUT("exchange method", 0,
                         "unknown method \"" + std::string(name) + "\" (p2p, neighbor)");
}

namespace {

// Tags keep the steps apart; messages of one step between two ranks never overtake.
constexpr int tag_base = 7100;

}  // namespace

template <typename V>
ExchangeExecutor<V>::ExchangeExecutor(MPI_Comm comm, ExchangePlan plan, const Topology& topology,
                                      ExchangeMethod method)
    : comm_(Communicator::dup(comm)), plan_(std::move(plan)), method_(method),
      rank_(rank_of(comm)), counters_(topology, rank_) {
    TESSEL_ENSURE_DIMS(topology.ranks() == size_of(comm),
                       "exchange: topology has " + std::to_string(topology.ranks()) +
                           " ranks, communicator " + std::to_string(size_of(comm)));
    plan_.validate(size_of(comm), rank_);
    if (method_ == ExchangeMethod::neighbor_collective)
        for (const auto& st : plan_.steps) {
            const int dummy = 0;
            MPI_Comm graph = MPI_COMM_NULL;
            TESSEL_MPI_CHECK(MPI_Dist_graph_create_adjacent(
                comm_.get(), static_cast<int>(st.recv_peers.size()),
                st.recv_peers.empty() ? &dummy : st.recv_peers.data(), MPI_UNWEIGHTED,
                static_cast<int>(st.send_peers.size()),
                st.send_peers.empty() ? &dummy : st.send_peers.data(), MPI_UNWEIGHTED,
                MPI_INFO_NULL, 0, &graph));
            graphs_.emplace_back(graph);
        }
}

template <typename V>
ExchangeExecutor<V>::~ExchangeExecutor() = default;

template <typename V>
void ExchangeExecutor<V>::post(int step, size_type w, const V* send, V* recv, Messages& m) {
    TESSEL_ENSURE_DIMS(step >= 0 && step < num_steps(), "exchange: no step " + std::to_string(step));
    TESSEL_ENSURE_DIMS(!m.active(), "exchange: these messages are still in flight");
    const auto& st = plan_.steps[step];
    const MPI_Datatype type = mpi_datatype<V>();
    m.step_ = step;
    m.completed_ = false;
    m.width_ = w;
    m.requests_.clear();
    if (method_ == ExchangeMethod::point_to_point) {
        m.requests_.reserve(st.recv_peers.size() + st.send_peers.size());
        for (std::size_t q = 0; q < st.recv_peers.size(); ++q) {
            MPI_Request req;
            TESSEL_MPI_CHECK(MPI_Irecv(recv + st.recv_displ[q] * w,
                                       mpi_count((st.recv_displ[q + 1] - st.recv_displ[q]) * w),
                                       type, st.recv_peers[q], tag_base + step, comm_.get(), &req));
            m.requests_.push_back(req);
        }
        for (std::size_t q = 0; q < st.send_peers.size(); ++q) {
            const size_type count = (st.send_displ[q + 1] - st.send_displ[q]) * w;
            MPI_Request req;
            TESSEL_MPI_CHECK(MPI_Isend(send + st.send_displ[q] * w, mpi_count(count), type,
                                       st.send_peers[q], tag_base + step, comm_.get(), &req));
            m.requests_.push_back(req);
            counters_.add_sent(st.send_peers[q], count * static_cast<size_type>(sizeof(V)));
        }
    } else {
        std::vector<int> scounts(st.send_peers.size()), sdispl(st.send_peers.size());
        std::vector<int> rcounts(st.recv_peers.size()), rdispl(st.recv_peers.size());
        for (std::size_t q = 0; q < st.send_peers.size(); ++q) {
            scounts[q] = mpi_count((st.send_displ[q + 1] - st.send_displ[q]) * w);
            sdispl[q] = mpi_count(st.send_displ[q] * w);
            counters_.add_sent(st.send_peers[q], size_type(scounts[q]) * size_type(sizeof(V)));
        }
        for (std::size_t q = 0; q < st.recv_peers.size(); ++q) {
            rcounts[q] = mpi_count((st.recv_displ[q + 1] - st.recv_displ[q]) * w);
            rdispl[q] = mpi_count(st.recv_displ[q] * w);
        }
        MPI_Request req;
        TESSEL_MPI_CHECK(MPI_Ineighbor_alltoallv(send, scounts.data(), sdispl.data(), type, recv,
                                                 rcounts.data(), rdispl.data(), type,
                                                 graphs_[step].get(), &req));
        m.requests_.push_back(req);
    }
    m.statuses_.resize(m.requests_.size());
}

template <typename V>
void ExchangeExecutor<V>::check_buffers(int step, DenseView<const V> in,
                                        DenseView<const V> out) const {
    TESSEL_ENSURE_DIMS(step >= 0 && step < num_steps(), "exchange: no step " + std::to_string(step));
    const auto& st = plan_.steps[step];
    TESSEL_ENSURE_DIMS(in.rows == st.in_rows && out.rows == st.out_rows && out.cols == in.cols,
                       "exchange step " + std::to_string(step) + ": buffers are " +
                           std::to_string(in.rows) + "x" + std::to_string(in.cols) + " and " +
                           std::to_string(out.rows) + "x" + std::to_string(out.cols) +
                           ", plan needs " + std::to_string(st.in_rows) + " and " +
                           std::to_string(st.out_rows) + " rows of one width");
    TESSEL_ENSURE_DIMS(in.layout == Layout::row_major && out.layout == Layout::row_major,
                       "exchange: buffers must be row-major");
}

template <typename V>
void ExchangeExecutor<V>::start(int step, DenseView<const V> in, DenseView<V> out,
                                Pending& pending) {
    TESSEL_ENSURE_DIMS(!pending.active(), "exchange: this Pending is still in flight");
    check_buffers(step, in, out);
    const auto& st = plan_.steps[step];
    const size_type w = in.cols;
    pending.out_ = out;
    pending.recv_.resize(static_cast<std::size_t>(st.rows_received() * w));
    pending.send_.resize(static_cast<std::size_t>(st.rows_sent() * w));

    // Pack the rows that leave, peer by peer.
    for (size_type e = 0; e < st.rows_sent(); ++e)
        std::copy_n(in.data + st.send_rows[e] * in.ld, w, pending.send_.data() + e * w);
    post(step, w, pending.send_.data(), pending.recv_.data(), pending.messages_);

    // The rows that stay: out := 0, then the local part of the sum.
    for (size_type i = 0; i < out.rows; ++i) std::fill_n(out.data + i * out.ld, w, V{0});
    for (std::size_t e = 0; e < st.self_in.size(); ++e) {
        const V* src = in.data + st.self_in[e] * in.ld;
        V* dst = out.data + st.self_out[e] * out.ld;
        for (size_type j = 0; j < w; ++j) dst[j] += src[j];
    }
}

template <typename V>
void ExchangeExecutor<V>::account(Messages& m) {
    // Received bytes: from the statuses (point-to-point), from the posted counts (neighbourhood).
    const auto& st = plan_.steps[m.step_];
    for (std::size_t q = 0; q < st.recv_peers.size(); ++q) {
        size_type count = (st.recv_displ[q + 1] - st.recv_displ[q]) * m.width_;
        if (method_ == ExchangeMethod::point_to_point) {
            int got = 0;
            TESSEL_MPI_CHECK(MPI_Get_count(&m.statuses_[q], mpi_datatype<V>(), &got));
            count = got;
        }
        counters_.add_received(st.recv_peers[q], count * static_cast<size_type>(sizeof(V)));
    }
    m.requests_.clear();
    m.completed_ = true;
}

template <typename V>
bool ExchangeExecutor<V>::test(Messages& m) {
    if (!m.active() || m.completed_) return true;
    int done = 0;
    // MPI_Testall changes nothing unless every request has completed.
    TESSEL_MPI_CHECK(MPI_Testall(static_cast<int>(m.requests_.size()), m.requests_.data(), &done,
                                 m.statuses_.data()));
    if (done) account(m);
    return done != 0;
}

template <typename V>
void ExchangeExecutor<V>::wait(Messages& m) {
    if (!m.active()) return;
    if (!m.completed_) {
        TESSEL_MPI_CHECK(MPI_Waitall(static_cast<int>(m.requests_.size()), m.requests_.data(),
                                     m.statuses_.data()));
        account(m);
    }
    m.step_ = -1;
    m.completed_ = false;
}

template <typename V>
bool ExchangeExecutor<V>::test(Pending& pending) {
    return test(pending.messages_);
}

template <typename V>
void ExchangeExecutor<V>::finish(Pending& pending) {
    if (!pending.active()) return;
    const auto& st = plan_.steps[pending.messages_.step()];
    const size_type w = pending.messages_.width();
    wait(pending.messages_);
    DenseView<V> out = pending.out_;
    for (size_type e = 0; e < st.rows_received(); ++e) {
        const V* src = pending.recv_.data() + e * w;
        V* dst = out.data + st.recv_rows[e] * out.ld;
        for (size_type j = 0; j < w; ++j) dst[j] += src[j];
    }
}

template <typename V>
void ExchangeExecutor<V>::run_step(int step, DenseView<const V> in, DenseView<V> out) {
    Pending pending;
    start(step, in, out, pending);
    finish(pending);
}

template <typename V>
void ExchangeExecutor<V>::run(DenseView<const V> in, DenseView<V> out) {
    TESSEL_ENSURE_DIMS(num_steps() > 0, "exchange: the plan has no steps");
    const size_type w = in.cols;
    DenseView<const V> current = in;
    for (int s = 0; s < num_steps(); ++s) {
        if (s + 1 == num_steps()) {
            run_step(s, current, out);
        } else {
            auto& buffer = scratch_[s % 2];
            buffer.resize(static_cast<std::size_t>(plan_.steps[s].out_rows * w));
            DenseView<V> next(buffer.data(), plan_.steps[s].out_rows, w);
            run_step(s, current, next);
            current = next;
        }
    }
}

template class ExchangeExecutor<float>;
template class ExchangeExecutor<double>;

}  // namespace tessel::comm
