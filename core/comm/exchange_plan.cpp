// Validation and byte prediction of exchange plans.
#include "core/comm/exchange_plan.hpp"

#include <string>

#include "core/error.hpp"

namespace tessel::comm {

namespace {

void check_peers(const std::vector<int>& peers, const std::vector<size_type>& displ,
                 size_type entries, int comm_size, int rank, const std::string& where) {
    if (displ.size() != peers.size() + 1 || displ.front() != 0 || displ.back() != entries)
        TESSEL_INVALID_INPUT("exchange plan", 0, where + ": displacements do not match the rows");
    for (std::size_t q = 0; q < peers.size(); ++q) {
        if (peers[q] < 0 || peers[q] >= comm_size || peers[q] == rank)
            TESSEL_INVALID_INPUT("exchange plan", 0, where + ": bad peer " + std::to_string(peers[q]));
        if (q > 0 && peers[q] <= peers[q - 1])
            TESSEL_INVALID_INPUT("exchange plan", 0, where + ": peers not ascending");
        if (displ[q + 1] < displ[q])
            TESSEL_INVALID_INPUT("exchange plan", 0, where + ": displacements decrease");
    }
}

void check_rows(const std::vector<size_type>& rows, size_type limit, const std::string& where) {
    for (size_type r : rows)
        if (r < 0 || r >= limit)
            TESSEL_INVALID_INPUT("exchange plan", 0,
                                 where + ": row " + std::to_string(r) + " outside 0.." +
                                     std::to_string(limit - 1));
}

}  // namespace

void ExchangePlan::validate(int comm_size, int rank) const {
    for (std::size_t s = 0; s < steps.size(); ++s) {
        const auto& st = steps[s];
        const std::string where = "step " + std::to_string(s);
        if (st.in_rows < 0 || st.out_rows < 0)
            TESSEL_INVALID_INPUT("exchange plan", 0, where + ": negative buffer size");
        if (s > 0 && st.in_rows != steps[s - 1].out_rows)
            TESSEL_INVALID_INPUT("exchange plan", 0, where + ": input rows differ from the previous output");
        check_peers(st.send_peers, st.send_displ, static_cast<size_type>(st.send_rows.size()),
                    comm_size, rank, where + " send");
        check_peers(st.recv_peers, st.recv_displ, static_cast<size_type>(st.recv_rows.size()),
                    comm_size, rank, where + " recv");
        if (st.self_in.size() != st.self_out.size())
            TESSEL_INVALID_INPUT("exchange plan", 0, where + ": self_in and self_out differ in length");
        check_rows(st.send_rows, st.in_rows, where + " send_rows");
        check_rows(st.self_in, st.in_rows, where + " self_in");
        check_rows(st.recv_rows, st.out_rows, where + " recv_rows");
        check_rows(st.self_out, st.out_rows, where + " self_out");
    }
}

std::vector<size_type> planned_bytes_per_level(const ExchangePlan& plan, const Topology& topology,
                                               int rank, size_type row_bytes) {
    std::vector<size_type> bytes(topology.num_levels(), 0);
    for (const auto& st : plan.steps)
        for (std::size_t q = 0; q < st.send_peers.size(); ++q) {
            const int level = topology.level_of(rank, st.send_peers[q]);
            if (level >= 0) bytes[level] += (st.send_displ[q + 1] - st.send_displ[q]) * row_bytes;
        }
    return bytes;
}

}  // namespace tessel::comm
