// The ranks of a reconstruction: a P_data x P_batch grid (thesis 3.1-3.2), its communicators,
// and failures on rank 0 passed on to the others.
#pragma once

#include <mpi.h>

#include <exception>
#include <string>
#include <type_traits>

#include "apps/xct/solvers/solver.hpp"
#include "core/app/run_mpi_app.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/comm/topology.hpp"
#include "core/error.hpp"
#include "partition/process_grid.hpp"

namespace tessel::xct {

/// Data ranks split A (pixels and rays); batch ranks split the slices, each batch group
/// holding a whole operator. Data groups are placed inside topology groups (partition).
struct ParallelLayout {
    MPI_Comm world = MPI_COMM_WORLD;
    int rank = 0, size = 1;
    comm::Topology topology;       // of world
    comm::Topology data_topology;  // of this rank's data group
    partition::ProcessGrid grid;
    comm::Communicator data, batch;

    int p_data() const { return grid.p_data; }
    int p_batch() const { return grid.p_batch; }
    int data_index() const { return grid.data_index[rank]; }
    int batch_index() const { return grid.batch_index[rank]; }
    /// Sums over the data ranks of this rank's batch group (the solver's dot products).
    Reducer data_sum() const;
};

/// Splits `world` into p_data x (size/p_data). `topology_spec` as comm::make_topology ("auto",
/// "flat", "node=2,socket=2"). Collective. Throws InvalidInput when p_data does not divide the
/// rank count.
ParallelLayout make_parallel_layout(MPI_Comm world, int p_data, const std::string& topology_spec);

/// Runs f() on rank 0 of `comm` and broadcasts whether it threw: rank 0 rethrows its error,
/// the others throw app::QuietExit (they leave quietly; rank 0 prints). Collective.
using app::on_root;

/// Broadcasts a string from rank 0.
void broadcast(MPI_Comm comm, std::string& text);

}  // namespace tessel::xct
