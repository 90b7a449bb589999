// tessel-abcd's steps before the inspector: outputs checked, threads set, the problem made
// (and described, and saved), the backend and the memory budget chosen.
#pragma once

#include <mpi.h>

#include <string>

#include "apps/ccsd_abcd/driver/args.hpp"
#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "apps/ccsd_abcd/problem/molecule_generator.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd::driver {

/// Every output file checked for writability before any work (rank 0 writes them). Collective.
void check_outputs(const Args& a, MPI_Comm comm);

/// Threads per rank: --threads, else OMP_NUM_THREADS, else the node's cores shared among its
/// ranks (no more than the cores this rank may run on); a note when threads outnumber them.
/// Collective.
void set_threads(const Args& a, MPI_Comm comm);

/// The problem of the command line in `precision`, the same on every rank (generators are
/// seeded; files are read by all). Collective.
Problem make_problem(const Args& a, Precision precision, MPI_Comm comm, MoleculeSummary* molecule);

/// The problem's lines of the report: A, B, values, and the molecule when generated.
void print_problem(const Args& a, const Problem& problem, const MoleculeSummary& molecule, int ranks);

/// --save-problem: rank 0 writes the problem file. Collective.
void save_problem_if_asked(const Args& a, const Problem& problem, MPI_Comm comm, bool say);

/// What the run needs besides the problem: the backend, the inspector's options (grid,
/// devices, memory budget) and the first device of this rank.
struct RunSetup {
    Backend backend = Backend::cpu;
    std::string backend_why;  ///< why this backend (auto's reason)
    InspectorOptions inspector;
    std::string budget_note;  ///< where the memory budget comes from
    int first_device = 0;
};

/// The backend, the grid and the memory budget per device. Collective.
RunSetup choose_backend_and_budget(const Args& a, const Problem& problem, MPI_Comm comm);

}  // namespace tessel::abcd::driver
