// Setting up a distributed SpMM from a matrix every rank knows: the layouts of the grid
// variants, the sender-multiplies partition and plans, and one call that builds any variant.
#pragma once

#include <memory>

#include "core/comm/topology.hpp"
#include "core/dist/dist_spmm.hpp"
#include "partition/process_grid.hpp"

namespace tessel::partition {

struct DistSetupOptions {
    /// Sender-multiplies: batch ranks (they split the k columns); must divide the rank count.
    int p_batch = 1;
    /// Passed to the variant (local backend, minibatch, pipelining, exchange method).
    dist::DistOptions run;
};

/// The layout a grid variant gets on p ranks: near_square_grid(p) = r x c, rows and columns cut
/// by nonzeros (fine blocks for 1.5d-a), S = max(r, c) stages, k cut evenly.
/// Throws InvalidInput for a variant that is not a grid one.
template <typename ValueType, typename IndexType>
dist::DistLayout grid_layout(dist::DistAlgorithm algorithm, const Csr<ValueType, IndexType>& a,
                             size_type k, int p);

/// How a sender-multiplies SpMM is laid out: the grid, the nnz-balanced row and column parts of
/// the data ranks, the k parts of the batch ranks, and the footprints and reduction plans of
/// the data ranks of one batch group.
struct SenderMultipliesSetup {
    ProcessGrid grid;
    std::vector<size_type> row_offsets, col_offsets, k_offsets;
    int batch = 0;                      // the batch group described below
    std::vector<int> group;             // its ranks, by data index
    comm::Topology group_topology;      // the topology restricted to them
    std::vector<std::vector<size_type>> footprints;
    std::vector<comm::ExchangePlan> plans;
};

/// The set-up of batch group `batch` (plans depend on where its ranks sit). Throws InvalidInput.
template <typename ValueType, typename IndexType>
SenderMultipliesSetup sender_multiplies_setup(const Csr<ValueType, IndexType>& a, size_type k,
                                              const comm::Topology& topology, int p_batch,
                                              bool hierarchical, int batch = 0);

/// Builds `algorithm` (not automatic: see choose_dist_algorithm) for the global matrix `a`,
/// identical on every rank of `comm`, and k columns: cuts the layout, extracts this rank's
/// blocks, builds plans. Collective. Throws InvalidInput, DimensionMismatch, MpiError.
template <typename ValueType, typename IndexType>
std::unique_ptr<dist::DistSpmm<ValueType, IndexType>> make_dist_spmm(
    dist::DistAlgorithm algorithm, MPI_Comm comm, const comm::Topology& topology,
    const Csr<ValueType, IndexType>& a, size_type k, const DistSetupOptions& options = {});

}  // namespace tessel::partition
