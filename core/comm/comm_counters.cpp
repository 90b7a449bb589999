// Per-level byte and message counters.
#include "core/comm/comm_counters.hpp"

#include "core/comm/mpi_check.hpp"
#include "core/error.hpp"

namespace tessel::comm {

CommCounters::CommCounters(Topology topology, int my_rank)
    : topology_(std::move(topology)), me_(my_rank) {
    reset();
}

void CommCounters::reset() {
    const std::size_t n = static_cast<std::size_t>(topology_.num_levels());
    sent_bytes_.assign(n, 0);
    sent_messages_.assign(n, 0);
    received_bytes_.assign(n, 0);
    received_messages_.assign(n, 0);
    self_bytes_ = 0;
}

void CommCounters::add_sent(int peer, size_type bytes) {
    const int level = topology_.level_of(me_, peer);
    if (level < 0) {
        self_bytes_ += bytes;
        return;
    }
    sent_bytes_[level] += bytes;
    ++sent_messages_[level];
}

void CommCounters::add_received(int peer, size_type bytes) {
    const int level = topology_.level_of(me_, peer);
    if (level < 0) return;
    received_bytes_[level] += bytes;
    ++received_messages_[level];
}

size_type CommCounters::inter_node_bytes() const {
    size_type total = 0;
    for (int l = 0; l < num_levels(); ++l)
        if (topology_.is_inter_node(l)) total += sent_bytes_[l];
    return total;
}

size_type CommCounters::total_sent_bytes() const {
    size_type total = 0;
    for (auto b : sent_bytes_) total += b;
    return total;
}

CommCounters& CommCounters::operator+=(const CommCounters& other) {
    TESSEL_ENSURE_DIMS(other.num_levels() == num_levels(), "counters: level counts differ");
    for (int l = 0; l < num_levels(); ++l) {
        sent_bytes_[l] += other.sent_bytes_[l];
        sent_messages_[l] += other.sent_messages_[l];
        received_bytes_[l] += other.received_bytes_[l];
        received_messages_[l] += other.received_messages_[l];
    }
    self_bytes_ += other.self_bytes_;
    return *this;
}

CommCounters CommCounters::summed(MPI_Comm comm) const {
    const std::size_t n = sent_bytes_.size();
    std::vector<long long> buffer;
    for (const auto* v : {&sent_bytes_, &sent_messages_, &received_bytes_, &received_messages_})
        buffer.insert(buffer.end(), v->begin(), v->end());
    buffer.push_back(self_bytes_);
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(buffer.size()),
                                   MPI_LONG_LONG, MPI_SUM, comm));
    CommCounters out = *this;
    std::size_t at = 0;
    for (auto* v : {&out.sent_bytes_, &out.sent_messages_, &out.received_bytes_,
                    &out.received_messages_})
        for (std::size_t l = 0; l < n; ++l) (*v)[l] = buffer[at++];
    out.self_bytes_ = buffer[at];
    return out;
}

}  // namespace tessel::comm
