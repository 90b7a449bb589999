// The driver's MPI vocabulary: core's rank, size, node and reduction helpers, and steps run on
// every rank with one failure line.
#pragma once

#include <mpi.h>

#include <utility>

#include "core/app/run_mpi_app.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"

namespace tessel::abcd::driver {

using comm::max_over_ranks;
using comm::rank_of;
using comm::ranks_on_node;
using comm::size_of;

// Runs `f` on every rank; if it throws anywhere, the lowest failing rank rethrows (main prints
// its line) and the others leave quietly.
template <typename F>
auto collective(MPI_Comm comm, F&& f) -> decltype(f()) {
    return app::all_ranks(comm, std::forward<F>(f));
}

}  // namespace tessel::abcd::driver
