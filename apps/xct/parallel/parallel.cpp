// Process grid and communicators of a reconstruction.
#include "apps/xct/parallel/parallel.hpp"

#include "core/comm/mpi_check.hpp"

namespace tessel::xct {

Reducer ParallelLayout::data_sum() const {
    if (grid.p_data <= 1) return {};
    const MPI_Comm comm = data.get();
    return [comm](std::vector<double>& values) {
        if (values.empty()) return;
        TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), comm::mpi_count(values.size()), MPI_DOUBLE,
                                       MPI_SUM, comm));
    };
}

ParallelLayout make_parallel_layout(MPI_Comm world, int p_data, const std::string& topology_spec) {
    ParallelLayout layout;
    layout.world = world;
    layout.rank = comm::rank_of(world);
    layout.size = comm::size_of(world);
    if (p_data < 1 || layout.size % p_data != 0)
        TESSEL_INVALID_INPUT("data-ranks", 0,
                             std::to_string(p_data) + " data ranks do not divide " + std::to_string(layout.size) +
                                 " ranks");
    layout.topology = comm::make_topology(topology_spec.empty() ? "flat" : topology_spec, world);
    layout.grid = partition::make_process_grid(p_data, layout.size / p_data, layout.topology);
    auto [data, batch] = partition::split_process_grid(world, layout.grid);
    layout.data = std::move(data);
    layout.batch = std::move(batch);
    layout.data_topology = layout.topology.subset(layout.grid.data_group(layout.batch_index()));
    return layout;
}

void broadcast(MPI_Comm comm, std::string& text) {
    long long length = static_cast<long long>(text.size());
    TESSEL_MPI_CHECK(MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm));
    text.resize(static_cast<std::size_t>(length));
    if (length > 0) TESSEL_MPI_CHECK(MPI_Bcast(text.data(), comm::mpi_count(length), MPI_CHAR, 0, comm));
}

}  // namespace tessel::xct
