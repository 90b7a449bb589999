#include "apps/ccsd_abcd/driver/ladder_run.hpp"

#include "core/error.hpp"

#ifndef TESSEL_ABCD_HAVE_LIBINT2

namespace tessel::abcd::driver {

int run_ladder(const Args&, Precision, MPI_Comm) {
    TESSEL_THROW(NotCompiled, "--molecule: this tessel-abcd was built without libint2, which makes the integrals "
                              "(install libint2-dev, e.g. with scripts/setup.sh, and configure again)");
}

}  // namespace tessel::abcd::driver

#else

#include <omp.h>

#include <cstdio>
#include <type_traits>

#include "apps/ccsd_abcd/driver/execute.hpp"
#include "apps/ccsd_abcd/driver/mpi.hpp"
#include "apps/ccsd_abcd/driver/plan.hpp"
#include "apps/ccsd_abcd/driver/results.hpp"
#include "apps/ccsd_abcd/driver/setup.hpp"
#include "apps/ccsd_abcd/integrals/ladder.hpp"
#include "apps/ccsd_abcd/results/result_gather.hpp"
#include "core/app/byte_size.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"

namespace tessel::abcd::driver {

namespace {

struct Inputs {
    XyzMolecule molecule;
    Amplitudes amplitudes;  // empty with --plan-only and no --amplitudes
    PairRows rows;
    std::string pair_note;  // why every pair ij is contracted, when t2 is not symmetric
};

Inputs read_inputs(const Args& a) {
    if (!a.generator.empty() || !a.problem_file.empty())
        TESSEL_INVALID_INPUT("command line", 0, "give --molecule or one of --generator and --problem, not both");
    if (!a.basis_given) TESSEL_INVALID_INPUT("--molecule", 0, "needs --basis NAME (sto-3g, cc-pvdz, def2-svp)");
    if (a.amplitudes.empty() && !a.plan_only)
        TESSEL_INVALID_INPUT("--molecule", 0, "needs --amplitudes amp.h5 (t2 and c_vir), or --plan-only");
    if (a.advise_tiles || a.tiling != "given")
        TESSEL_INVALID_INPUT("--molecule", 0, "tiles are atom clusters: use --cluster-size, not --advise-tiles/--tiling");
    Inputs in;
    in.molecule = read_xyz(a.molecule_file);
    if (!a.amplitudes.empty()) {
        in.amplitudes = read_amplitudes(a.amplitudes);
        in.rows = choose_pair_rows(in.amplitudes, !a.all_pairs, &in.pair_note);
    } else {
        in.rows = PairRows{in.molecule.electrons() / 2, !a.all_pairs};  // closed shell, all electrons correlated
    }
    return in;
}

LadderOptions ladder_options(const Args& a) {
    LadderOptions o;
    o.molecule_name = a.molecule_file;
    o.basis = a.molecule.basis;
    o.threshold = a.threshold;
    o.cluster_size = a.molecule.cluster_size;
    o.seed = a.seed;
    return o;
}

void print_ladder(const LadderProblem& lp, const Problem& p, int ranks) {
    const double nbf = double(lp.basis->functions);
    std::printf("tessel-abcd: %s\n", p.description.c_str());
    std::printf("A (T in the AO basis): %lld x %lld, rows %s, cols %s (%s)\n", (long long)p.m(), (long long)p.k(),
                p.m_tiling.describe().c_str(), p.k_tiling.describe().c_str(),
                app::format_bytes(double(p.m()) * double(p.k()) * double(value_bytes(p.precision))).c_str());
    const ScreenedB sb = screened_b(lp);
    std::printf("B (integrals (ac|bd), AO pairs folded into + and - parts): %lld of %lld tiles kept by the Schwarz "
                "screening, density %.4f (%s if stored; the dense AO integrals would take %s)\n",
                (long long)sb.kept_tiles, (long long)sb.tiles, sb.density,
                app::format_bytes(p.b_shape.area(p.k_tiling, p.n_tiling) * double(value_bytes(p.precision))).c_str(),
                app::format_bytes(nbf * nbf * nbf * nbf * 8).c_str());
    std::printf("values: %s, %s precision; %d rank(s) x %d thread(s)\n", p.values->describe().c_str(),
                to_string(p.precision).c_str(), ranks, omp_get_max_threads());
    std::fflush(stdout);
}

void describe_ladder(nlohmann::json& doc, const LadderProblem& lp, const Args& a) {
    doc["ladder"] = {{"molecule", a.molecule_file},
                     {"basis", lp.basis->name},
                     {"basis_functions", lp.basis->functions},
                     {"atom_clusters", lp.clusters->functions.count()},
                     {"nocc", lp.nocc},
                     {"pairs", lp.rows.symmetric ? "i <= j" : "all"},
                     {"threshold", a.threshold},
                     {"b_tiles_kept", lp.problem.b_shape.nnz()},
                     {"b_density", screened_b(lp).density}};
}

template <typename T>
int run_typed(const Args& a, LadderProblem& lp, Inputs& in, MPI_Comm comm) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    const bool say = rank == 0 && !a.quiet;
    PhaseTimes phases;
    Problem& problem = lp.problem;
    if (say && !in.pair_note.empty()) std::printf("tessel-abcd: %s\n", in.pair_note.c_str());
    if (say) print_ladder(lp, problem, ranks);
    const RunSetup setup = choose_backend_and_budget(a, problem, comm);
    Metrics metrics("tessel-abcd");
    const InspectorRun inspected = plan_step(a, problem, setup, phases, metrics.json(), comm, say);
    const Plan& plan = inspected.plan;
    plan_b_tiles(lp, plan, rank);
    describe_ladder(metrics.json(), lp, a);
    auto write_metrics = [&] {
        metrics.set_phases(phases);
        collective(comm, [&] {
            if (rank == 0 && !a.metrics.empty()) metrics.write(a.metrics);
        });
    };
    if (a.plan_only) {
        write_metrics();
        return 0;
    }
    Timer t;
    collective(comm, [&] { set_amplitudes(lp, in.amplitudes, a.amplitudes); });
    phases.add("amplitudes_to_ao", t.seconds());
    const DgemmReference dgemm =
        measure_dgemm_reference(a, problem, setup.backend, size_of(comm) * setup.inspector.devices, comm, say);
    const auto [run, totals] = generate_a_and_execute<T>(a, problem, plan, setup, dgemm, phases, comm, say);
    const EriTiles::Counts made = lp.tiles->counts();
    if (say)
        std::printf("integrals (rank 0): %lld B tiles from libint2 passes, %lld more from the other sign's pass "
                    "(kept ahead: at most %s)\n",
                    (long long)made.made, (long long)made.from_spare,
                    app::format_bytes(double(made.spare_peak_bytes)).c_str());
    metrics.json()["ladder"]["b_tiles_made_rank0"] = made.made;
    metrics.json()["ladder"]["b_tiles_from_other_sign_rank0"] = made.from_spare;

    // --verify: the dense GEMM of the same A and B (all ranks' tiles on rank 0); then R.
    Args no_output = a;
    no_output.output.clear();
    no_output.output_tiles = false;
    const CheckedResult checked = verify_and_write<T>(no_output, problem, plan, run.c_owned, totals.flops, comm, say);
    t.restart();
    TileStore<T> all = gather_c_tiles(problem, plan, run.c_owned, rank, ranks > 1 ? comm : MPI_COMM_NULL);
    collective(comm, [&] {
        if (rank != 0 || a.output.empty()) return;
        const auto r = ladder_from_tiles(lp, in.amplitudes, plan.product.c_shape, all);
        write_ladder_result(a.output, in.amplitudes, r);
    });
    phases.add("r_to_mo", t.seconds());
    if (say && !a.output.empty()) std::printf("R written to %s (dataset r)\n", a.output.c_str());
    record_results(metrics.json(), a, run, totals, plan, dgemm, setup.backend, checked);
    write_metrics();
    int failed = (!totals.flops_agree || checked.failed()) ? 1 : 0;
    TESSEL_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, comm));
    return failed;
}

}  // namespace

int run_ladder(const Args& a, Precision precision, MPI_Comm comm) {
    Inputs in = collective(comm, [&] { return read_inputs(a); });
    LadderProblem lp = collective(comm, [&] {
        LadderProblem p = make_ladder_problem(in.molecule, in.rows, ladder_options(a));
        p.problem.precision = precision;
        if (!a.amplitudes.empty()) {
            // Shapes against the basis before any work (set_amplitudes checks again).
            if (in.amplitudes.nbf != p.basis->functions)
                TESSEL_INVALID_INPUT(a.amplitudes + ":/c_vir", 0,
                                     std::to_string(in.amplitudes.nbf) + " rows, but basis " + p.basis->name +
                                         " has " + std::to_string(p.basis->functions) + " functions on " +
                                         a.molecule_file);
        }
        return p;
    });
    return precision == Precision::float64 ? run_typed<double>(a, lp, in, comm) : run_typed<float>(a, lp, in, comm);
}

}  // namespace tessel::abcd::driver

#endif
