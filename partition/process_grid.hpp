// Process grids: P = P_data x P_batch with topology-aware placement (thesis 3.1-3.2), and the
// near-square r x c grids of the 1.5D/2D algorithms.
#pragma once

#include <mpi.h>

#include <utility>
#include <vector>

#include "core/comm/mpi_types.hpp"
#include "core/comm/topology.hpp"

namespace tessel::partition {

/// Data ranks split the sparse matrix (and the rows of B and C); batch ranks split the k
/// columns of B and C, each batch group holding a whole copy of A.
struct ProcessGrid {
    int p_data = 1;
    int p_batch = 1;
    std::vector<int> data_index;   // per rank of the communicator
    std::vector<int> batch_index;  // per rank
    /// The ranks of batch group b, ordered by data index.
    std::vector<int> data_group(int b) const;
};

/// Places p_data x p_batch = topology.ranks() ranks so that each data group (the ranks that
/// share a batch index and communicate every SpMM) is a run of consecutive ranks in hierarchy
/// order (outermost group first), hence inside one node whenever p_data divides the ranks per
/// node. Throws InvalidInput when p_data·p_batch differs from the rank count.
ProcessGrid make_process_grid(int p_data, int p_batch, const comm::Topology& topology);

/// True when every data group lies inside one group of `level` (for example "node").
bool data_groups_within(const ProcessGrid& grid, const comm::Topology& topology, int level);

/// The data communicator (ranks of this rank's batch group, ordered by data index) and the
/// batch communicator (ranks with this rank's data index, ordered by batch index). Collective.
std::pair<comm::Communicator, comm::Communicator> split_process_grid(MPI_Comm comm,
                                                                     const ProcessGrid& grid);

/// r x c = p with c the largest divisor of p not above √p (so r >= c, square when possible).
std::pair<int, int> near_square_grid(int p);

}  // namespace tessel::partition
