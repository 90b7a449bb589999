#include "apps/ccsd_abcd/driver/plan.hpp"

#include <omp.h>

#include <cstdio>

#include "apps/ccsd_abcd/driver/mpi.hpp"
#include "core/app/byte_size.hpp"
#include "core/cpu/isa.hpp"
#include "core/timer.hpp"

namespace tessel::abcd::driver {

InspectorRun run_inspector(const Problem& problem, const InspectorOptions& io, MPI_Comm comm) {
    Timer t;
    InspectorRun r;
    r.plan = collective(comm, [&] { return inspect(problem, io); });
    r.seconds = max_over_ranks(t.seconds(), comm);
    return r;
}

double c_density(const Problem& problem, const Plan& plan) {
    return plan.product.c_shape.density(problem.m_tiling, problem.n_tiling);
}

void print_plan(const Args& a, const Problem& problem, const Plan& plan, const RunSetup& setup, int ranks) {
    const double density = c_density(problem, plan);
    std::printf("R (C): %lld tiles, density %.4f; densities T %.4f, V %.4f, R %.4f; %.6g GFLOP in %lld tile GEMMs\n",
                (long long)plan.product.c_shape.nnz(), density, problem.density_a(), problem.density_b(), density,
                plan.product.flops * 1e-9, (long long)plan.product.gemms);
    std::printf("budget: %s per device (%s); backend %s\n", app::format_bytes(double(setup.inspector.device_memory)).c_str(),
                setup.budget_note.c_str(), setup.backend_why.c_str());
    if (plan.grid.size() < ranks)
        std::printf("note: grid %s uses %d of %d ranks; the others stay idle\n", plan.grid.describe().c_str(),
                    plan.grid.size(), ranks);
    std::fputs(plan.describe(a.verbose || ranks <= 4).c_str(), stdout);
    if (a.verbose) std::printf("symbolic product: %s\n%s\n", plan.product.kernel.c_str(), cpu::isa_description().c_str());
    std::fflush(stdout);
}

void describe_plan_in_metrics(nlohmann::json& doc, const Problem& problem, const Plan& plan, double inspector_seconds,
                              int ranks) {
    doc["problem"] = {{"description", problem.description},
                      {"m", problem.m()},
                      {"n", problem.n()},
                      {"k", problem.k()},
                      {"tiles", {{"m", problem.m_tiling.count()}, {"k", problem.k_tiling.count()}, {"n", problem.n_tiling.count()}}},
                      {"density_a", problem.density_a()},
                      {"density_b", problem.density_b()},
                      {"density_c", c_density(problem, plan)},
                      {"precision", problem.precision == Precision::float64 ? "double" : "float"}};
    doc["ranks"] = ranks;
    doc["threads_per_rank"] = omp_get_max_threads();
    doc["plan"] = plan.to_json();
    doc["inspector_seconds"] = inspector_seconds;
}

InspectorRun plan_step(const Args& a, const Problem& problem, const RunSetup& setup, PhaseTimes& phases,
                       nlohmann::json& doc, MPI_Comm comm, bool say) {
    const int ranks = size_of(comm);
    InspectorRun inspected = run_inspector(problem, setup.inspector, comm);
    phases.add("inspector", inspected.seconds);
    if (say) print_plan(a, problem, inspected.plan, setup, ranks);
    describe_plan_in_metrics(doc, problem, inspected.plan, inspected.seconds, ranks);
    return inspected;
}

}  // namespace tessel::abcd::driver
