// tessel-abcd on a real molecule (--molecule mol.xyz --basis NAME --amplitudes amp.h5): the
// ladder term R[i,j,a,b] = Σ_cd t2[i,j,c,d] (ac|bd) through the same inspector and executor, B's
// tiles the two-electron integrals from libint2, and R written as dataset r.
#pragma once

#include <mpi.h>

#include "apps/ccsd_abcd/driver/args.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd::driver {

/// The whole run; returns the exit code. Without libint2 in the build it throws NotCompiled.
/// Collective.
int run_ladder(const Args& a, Precision precision, MPI_Comm comm);

}  // namespace tessel::abcd::driver
