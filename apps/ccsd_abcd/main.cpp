// tessel-abcd: the CCSD ABCD term R(ij,ab) = Σ_cd T(ij,cd)·V(cd,ab) as the distributed
// block-sparse GEMM C = A·B with irregular tiles (inspector, then executor), from a generator
// or a problem file. The steps live in driver/*.cpp: options (args), problem and budget
// (setup), tile-size advice (advice), inspector (plan), executor (execute), verification,
// output and metrics (results).
#include <mpi.h>

#include <cstdio>
#include <type_traits>

#include "apps/ccsd_abcd/driver/advice.hpp"
#include "apps/ccsd_abcd/driver/args.hpp"
#include "apps/ccsd_abcd/driver/execute.hpp"
#include "apps/ccsd_abcd/driver/ladder_run.hpp"
#include "apps/ccsd_abcd/driver/mpi.hpp"
#include "apps/ccsd_abcd/driver/plan.hpp"
#include "apps/ccsd_abcd/driver/results.hpp"
#include "apps/ccsd_abcd/driver/setup.hpp"
#include "core/app/run_mpi_app.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"

namespace {

using namespace tessel;
using namespace tessel::abcd;
using namespace tessel::abcd::driver;

// Metrics (phases included) written by rank 0 when --metrics asks. Collective.
void write_metrics(const Args& a, Metrics& metrics, const PhaseTimes& phases, MPI_Comm comm, bool say) {
    metrics.set_phases(phases);
    if (a.metrics.empty()) return;
    const int rank = rank_of(comm);
    collective(comm, [&] {
        if (rank == 0) metrics.write(a.metrics);
    });
    if (say) std::printf("metrics written to %s\n", a.metrics.c_str());
}

template <typename T>
int run_typed(const Args& a, MPI_Comm comm) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    const bool say = rank == 0 && !a.quiet;
    PhaseTimes phases;
    Timer t;

    MoleculeSummary molecule;
    Problem problem = make_problem(a, std::is_same_v<T, double> ? Precision::float64 : Precision::float32, comm, &molecule);
    phases.add("problem", t.seconds());
    if (say) print_problem(a, problem, molecule, ranks);
    save_problem_if_asked(a, problem, comm, say);
    const RunSetup setup = choose_backend_and_budget(a, problem, comm);
    if (!apply_tiling_options<T>(a, problem, setup, comm, say)) return 0;

    Metrics metrics("tessel-abcd");
    const InspectorRun inspected = plan_step(a, problem, setup, phases, metrics.json(), comm, say);
    const Plan& plan = inspected.plan;
    if (a.plan_only) {
        metrics.set_phases(phases);
        if (rank == 0 && !a.metrics.empty()) metrics.write(a.metrics);
        return 0;
    }

    const DgemmReference dgemm = measure_dgemm_reference(a, problem, setup.backend, ranks * setup.inspector.devices, comm, say);
    const auto [run, totals] = generate_a_and_execute<T>(a, problem, plan, setup, dgemm, phases, comm, say);

    const CheckedResult checked = verify_and_write<T>(a, problem, plan, run.c_owned, totals.flops, comm, say);
    record_results(metrics.json(), a, run, totals, plan, dgemm, setup.backend, checked);
    write_metrics(a, metrics, phases, comm, say);
    int failed = (!totals.flops_agree || checked.failed()) ? 1 : 0;
    TESSEL_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, comm));
    return failed;
}

int run(int argc, char** argv) {
    MPI_Comm comm = MPI_COMM_WORLD;
    Args a;
    if (const auto stop = parse_args(argc, argv, rank_of(comm), a)) return *stop;
    check_outputs(a, comm);  // before any work
    set_threads(a, comm);
    const Precision precision = parse_precision(a.precision);
    if (!a.molecule_file.empty()) return run_ladder(a, precision, comm);  // a real molecule (issue 34)
    return precision == Precision::float64 ? run_typed<double>(a, comm) : run_typed<float>(a, comm);
}

}  // namespace

int main(int argc, char** argv) { return tessel::app::run_mpi_app("tessel-abcd", argc, argv, run); }
