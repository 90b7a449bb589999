// tessel-abcd's inspector step: the plan made and timed, its lines of the report, and the
// problem and plan in the metrics document.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>

#include "apps/ccsd_abcd/driver/args.hpp"
#include "apps/ccsd_abcd/driver/setup.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"
#include "core/timer.hpp"

namespace tessel::abcd::driver {

struct InspectorRun {
    Plan plan;
    double seconds = 0;  ///< wall time, the most over the ranks
};

/// The inspector on every rank, timed. Collective.
InspectorRun run_inspector(const Problem& problem, const InspectorOptions& io, MPI_Comm comm);

/// The density of C (the product's shape) in elements.
double c_density(const Problem& problem, const Plan& plan);

/// The plan's lines of the report: R's shape, the budget and backend, the plan per process.
void print_plan(const Args& a, const Problem& problem, const Plan& plan, const RunSetup& setup, int ranks);

/// The problem, the run's shape (ranks, threads) and the plan in the metrics document.
void describe_plan_in_metrics(nlohmann::json& doc, const Problem& problem, const Plan& plan, double inspector_seconds,
                              int ranks);

/// The inspector step of both runs: run_inspector (phase inspector), the plan's lines when
/// `say`, and the plan in `doc`. Collective.
InspectorRun plan_step(const Args& a, const Problem& problem, const RunSetup& setup, PhaseTimes& phases,
                       nlohmann::json& doc, MPI_Comm comm, bool say);

}  // namespace tessel::abcd::driver
