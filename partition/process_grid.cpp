// Batch x data grids with topology-aware placement.
#include "partition/process_grid.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace tessel::partition {

std::vector<int> ProcessGrid::data_group(int b) const {
    std::vector<int> ranks(p_data, -1);
    for (std::size_t r = 0; r < batch_index.size(); ++r)
        if (batch_index[r] == b) ranks[data_index[r]] = static_cast<int>(r);
    return ranks;
}

ProcessGrid make_process_grid(int p_data, int p_batch, const comm::Topology& topology) {
    const int p = topology.ranks();
    if (p_data < 1 || p_batch < 1 || p_data * p_batch != p)
        TESSEL_INVALID_INPUT("process grid", 0,
                             std::to_string(p_data) + " data x " + std::to_string(p_batch) +
                                 " batch ranks do not make " + std::to_string(p) + " ranks");
    // Hierarchy order: by group at the outermost level below global, then inward, then rank.
    std::vector<int> order(p);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        for (int l = topology.num_levels() - 1; l >= 0; --l)
            if (topology.group(l, a) != topology.group(l, b))
                return topology.group(l, a) < topology.group(l, b);
        return a < b;
    });
    ProcessGrid grid;
    grid.p_data = p_data;
    grid.p_batch = p_batch;
    grid.data_index.assign(p, 0);
    grid.batch_index.assign(p, 0);
    for (int pos = 0; pos < p; ++pos) {
        grid.batch_index[order[pos]] = pos / p_data;
        grid.data_index[order[pos]] = pos % p_data;
    }
    return grid;
}

bool data_groups_within(const ProcessGrid& grid, const comm::Topology& topology, int level) {
    for (int b = 0; b < grid.p_batch; ++b)
        if (topology.level_spanned(grid.data_group(b)) > level) return false;
    return true;
}

std::pair<comm::Communicator, comm::Communicator> split_process_grid(MPI_Comm comm,
                                                                     const ProcessGrid& grid) {
    const int rank = comm::rank_of(comm);
    auto data = comm::Communicator::split(comm, grid.batch_index[rank], grid.data_index[rank]);
    auto batch = comm::Communicator::split(comm, grid.data_index[rank], grid.batch_index[rank]);
    return {std::move(data), std::move(batch)};
}

std::pair<int, int> near_square_grid(int p) {
    if (p < 1) TESSEL_INVALID_INPUT("process grid", 0, "needs at least one rank");
    int c = static_cast<int>(std::sqrt(double(p)));
    while (c > 1 && p % c != 0) --c;
    return {p / c, c};
}

}  // namespace tessel::partition
