// tessel-abcd's tile-size advice (issue 17): candidates predicted from the GEMM rate table,
// measured on request, the table printed; --tiling auto runs the recommended one.
#pragma once

#include <mpi.h>

#include "apps/ccsd_abcd/driver/args.hpp"
#include "apps/ccsd_abcd/driver/setup.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd::driver {

/// --advise-tiles, --tiling auto and --calibrate. Returns false when the run stops here (the
/// advice printed, or the rate table calibrated); with --tiling auto `problem` becomes the
/// recommended candidate. Collective.
template <typename T>
bool apply_tiling_options(const Args& a, Problem& problem, const RunSetup& setup, MPI_Comm comm, bool say);

}  // namespace tessel::abcd::driver
