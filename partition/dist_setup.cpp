// Layouts, sender-multiplies set-up and the builder of every distributed variant.
#include "partition/dist_setup.hpp"

#include <algorithm>

#include "core/comm/mpi_check.hpp"
#include "core/dist/make_grid_spmm.hpp"
#include "core/dist/sender_multiplies_spmm.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "partition/balanced_partition.hpp"
#include "partition/reduction_plan.hpp"

namespace tessel::partition {

using dist::DistAlgorithm;

template <typename V, typename I>
dist::DistLayout grid_layout(DistAlgorithm algorithm, const Csr<V, I>& a, size_type k, int p) {
    const auto [r, c] = near_square_grid(p);
    const int stages = std::max(r, c);
    dist::DistLayout l;
    l.m = a.rows();
    l.n = a.cols();
    l.k = k;
    l.grid_rows = r;
    l.grid_cols = c;
    switch (algorithm) {
    case DistAlgorithm::a15d:
        l.row_offsets = row_offsets_by_nnz(a, r * c);
        l.col_offsets = col_offsets_by_nnz(a, r * c);
        l.k_offsets = {0, k};
        break;
    case DistAlgorithm::a2d:
    case DistAlgorithm::a2d_async:
        l.row_offsets = row_offsets_by_nnz(a, r);
        l.col_offsets = col_offsets_by_nnz(a, c);
        l.k_offsets = even_offsets(k, stages);
        break;
    case DistAlgorithm::c2d:
    case DistAlgorithm::c2d_async:
        l.row_offsets = row_offsets_by_nnz(a, r);
        l.col_offsets = col_offsets_by_nnz(a, stages);
        l.k_offsets = even_offsets(k, c);
        break;
    default:
        TESSEL_INVALID_INPUT("grid layout", 0,
                             std::string(dist::to_string(algorithm)) + " is not a grid algorithm");
    }
    return l;
}

template <typename V, typename I>
SenderMultipliesSetup sender_multiplies_setup(const Csr<V, I>& a, size_type k,
                                              const comm::Topology& topology, int p_batch,
                                              bool hierarchical, int batch) {
    const int p = topology.ranks();
    if (p_batch < 1 || p % p_batch != 0)
        TESSEL_INVALID_INPUT("--batch", 0, std::to_string(p_batch) + " batch ranks do not divide " +
                                               std::to_string(p) + " ranks");
    SenderMultipliesSetup s;
    s.grid = make_process_grid(p / p_batch, p_batch, topology);
    s.row_offsets = row_offsets_by_nnz(a, s.grid.p_data);
    s.col_offsets = col_offsets_by_nnz(a, s.grid.p_data);
    s.k_offsets = even_offsets(k, p_batch);
    s.batch = batch;
    s.group = s.grid.data_group(batch);
    s.group_topology = topology.subset(s.group);
    s.footprints = footprints(a, s.col_offsets);
    s.plans = hierarchical ? hierarchical_reduction_plans(s.footprints, s.row_offsets, s.group_topology)
                           : direct_reduction_plans(s.footprints, s.row_offsets, s.group_topology);
    return s;
}

template <typename V, typename I>
std::unique_ptr<dist::DistSpmm<V, I>> make_dist_spmm(DistAlgorithm algorithm, MPI_Comm comm,
                                                     const comm::Topology& topology,
                                                     const Csr<V, I>& a, size_type k,
                                                     const DistSetupOptions& options) {
    const int rank = comm::rank_of(comm), p = comm::size_of(comm);
    if (topology.ranks() != p)
        TESSEL_INVALID_INPUT("topology", 0, "describes " + std::to_string(topology.ranks()) +
                                                " ranks, the communicator has " + std::to_string(p));
    if (algorithm == DistAlgorithm::automatic)
        TESSEL_INVALID_INPUT("--dist-algo", 0, "resolve auto with choose_dist_algorithm first");
    if (dist::uses_process_grid(algorithm)) {
        auto layout = grid_layout(algorithm, a, k, p);
        std::vector<Csr<V, I>> blocks;
        for (const auto& range : dist::a_ranges(algorithm, layout, rank))
            blocks.push_back(dist::extract_block(a, range));
        return dist::make_grid_spmm(algorithm, comm, topology, std::move(layout), std::move(blocks),
                                    options.run);
    }
    const bool hierarchical = algorithm == DistAlgorithm::sm_hierarchical;
    const int p_batch = options.p_batch;
    // The grid is the same on every rank; the plans are built for this rank's batch group.
    const auto grid = make_process_grid(p / std::max(1, p_batch), p_batch, topology);
    auto setup = sender_multiplies_setup(a, k, topology, p_batch, hierarchical, grid.batch_index[rank]);
    const int d = setup.grid.data_index[rank], b = setup.grid.batch_index[rank];
    auto [data_comm, batch_comm] = split_process_grid(comm, setup.grid);
    auto local = footprint_block(a, setup.footprints[d], setup.col_offsets[d], setup.col_offsets[d + 1]);
    return dist::make_sender_multiplies_spmm<V, I>(
        data_comm.get(), setup.group_topology, setup.row_offsets, setup.col_offsets,
        setup.k_offsets[b], setup.k_offsets[b + 1], std::move(local), std::move(setup.plans[d]),
        options.run);
}

#define TESSEL_INSTANTIATE(V, I)                                                                  \
    template dist::DistLayout grid_layout(DistAlgorithm, const Csr<V, I>&, size_type, int);      \
    template SenderMultipliesSetup sender_multiplies_setup(const Csr<V, I>&, size_type,          \
                                                           const comm::Topology&, int, bool, int); \
    template std::unique_ptr<dist::DistSpmm<V, I>> make_dist_spmm(                                \
        DistAlgorithm, MPI_Comm, const comm::Topology&, const Csr<V, I>&, size_type,              \
        const DistSetupOptions&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::partition
