// The driver's small MPI helpers: this rank, the ranks, the ranks on this node, and steps run
// on every rank with one failure line.
#pragma once

#include <mpi.h>

#include <utility>

#include "core/app/run_mpi_app.hpp"

namespace tessel::abcd::driver {

inline int rank_of(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

inline int size_of(MPI_Comm comm) {
    int s = 1;
    MPI_Comm_size(comm, &s);
    return s;
}

// Runs `f` on every rank; if it throws anywhere, the lowest failing rank rethrows (main prints
// its line) and the others leave quietly.
template <typename F>
auto collective(MPI_Comm comm, F&& f) -> decltype(f()) {
    return app::all_ranks(comm, std::forward<F>(f));
}

// Ranks sharing this node (for the default thread count and memory budget). Collective.
inline int local_ranks(MPI_Comm comm, int* local_rank = nullptr) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    const int n = size_of(node);
    if (local_rank) *local_rank = rank_of(node);
    MPI_Comm_free(&node);
    return n;
}

// The largest `x` over the ranks of `comm`. Collective.
inline double max_over_ranks(double x, MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, comm);
    return x;
}

}  // namespace tessel::abcd::driver
