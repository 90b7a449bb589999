// Bringing the result together: per-tile norms of C on every rank, and all C tiles on rank 0
// (for verification and for writing tiles).
#pragma once

#include <mpi.h>

#include <vector>

#include "apps/ccsd_abcd/executor/tile_store.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"

namespace tessel::abcd {

/// ‖C(i,c)‖_F for every tile of shape(C) (shape order), reduced over `comm` (each tile is
/// owned by one rank; MPI_COMM_NULL: this process holds them all). Throws MpiError.
template <typename ValueType>
std::vector<double> c_tile_norms(const TileStore<ValueType>& c_owned, MPI_Comm comm);

/// Every tile of C on rank 0 of `comm` (sent by its owner); other ranks get an empty store.
/// Collective. Throws MpiError.
template <typename ValueType>
TileStore<ValueType> gather_c_tiles(const Problem& problem, const Plan& plan, const TileStore<ValueType>& c_owned,
                                    int rank, MPI_Comm comm);

}  // namespace tessel::abcd
