// tessel-abcd's options (CLI11), in the order --help lists them.
#include "apps/ccsd_abcd/driver/args.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>

namespace tessel::abcd::driver {

namespace {

// Where the problem comes from: a generator (and its parameters) or a file; saving it.
void add_problem_options(CLI::App& app, Args& a) {
    app.add_option("--generator", a.generator, "Problem generator: synthetic or molecule")
        ->check(CLI::IsMember({"synthetic", "molecule"}));
    app.add_option("--problem", a.problem_file, "Problem file (HDF5) written by --save-problem");
    auto* g = "Synthetic generator (paper section 5.1)";
    app.add_option("--m", a.synthetic.m, "Rows M of A and C")->group(g);
    app.add_option("--n", a.synthetic.n, "Columns N of B and C, and K = N")->group(g);
    app.add_option("--tile-min", a.synthetic.tile_min, "Smallest tile size")->group(g);
    app.add_option("--tile-max", a.synthetic.tile_max, "Largest tile size")->group(g);
    app.add_option("--density-a", a.synthetic.density_a, "Element-area density of A in (0, 1]")->group(g);
    app.add_option("--density-b", a.synthetic.density_b, "Element-area density of B in (0, 1]")->group(g);
    auto* mg = "Molecule generator (alkane chain, like C65H132)";
    app.add_option("--length", a.molecule.length, "Carbons L of the chain C_L H_2L+2")->group(mg);
    app.add_option("--basis", a.molecule.basis, "Basis: svp (def2-SVP) or minimal; with --molecule a basis set name")
        ->group(mg);
    app.add_option("--cluster-size", a.molecule.cluster_size, "Target orbitals per k-means cluster (tile)")->group(mg);
    app.add_option("--v-cutoff", a.molecule.v_cutoff, "V(cd,ab) non-zero when c~a and d~b within this (Angstrom)")->group(mg);
    app.add_option("--t-cutoff", a.molecule.t_cutoff, "T(ij,cd) non-zero when i~c and j~d within this (Angstrom)")->group(mg);
    app.add_option("--pair-cutoff", a.molecule.pair_cutoff, "Occupied pairs ij kept within this (Angstrom)")->group(mg);
    auto* rm = "A real molecule: the ladder term R[i,j,a,b] = sum_cd t2[i,j,c,d] (ac|bd) with integrals from libint2";
    app.add_option("--molecule", a.molecule_file, "XYZ file (Angstrom) of the molecule; --basis names its basis set "
                                                  "(sto-3g, cc-pvdz, def2-svp)")->group(rm);
    app.add_option("--amplitudes", a.amplitudes, "HDF5 file with t2 (nocc,nocc,nvir,nvir) and c_vir (nbf,nvir), "
                                                 "c_vir's attribute ao_order = psi4, pyscf or libint")->group(rm);
    app.add_option("--threshold", a.threshold, "Schwarz screening of B's tiles, relative to the largest bound")
        ->group(rm);
    app.add_flag("--all-pairs", a.all_pairs, "Contract every pair ij, not only i <= j (which needs t2[i,j,c,d] = "
                                             "t2[j,i,d,c]; without that symmetry every pair is taken anyway)")
        ->group(rm);
    app.add_option("--seed", a.seed, "Seed of the generators and of the tile values");
    app.add_option("--save-problem", a.save_problem, "Write the problem (tilings, shapes) to this HDF5 file");
    app.add_flag("--save-tiles", a.save_tiles, "With --save-problem: store the tile values of A and B too");
}

// How it runs (grid, budget, backend, threads, precision) and what it writes.
void add_run_options(CLI::App& app, Args& a) {
    app.add_option("--grid", a.grid, "Process grid PxQ (default 1 x ranks)");
    app.add_option("--column-assignment", a.column_assignment,
                   "mirrored: the paper's mirrored-cyclic order by flops; refined: then moves and swaps of columns "
                   "between the most and least loaded processes")
        ->check(CLI::IsMember({"mirrored", "refined"}));
    app.add_option("--device-memory", a.device_memory,
                   "Memory budget per device in bytes (K/M/G suffixes); default: GPU free memory on cuda, a quarter of "
                   "host memory per rank on cpu");
    app.add_option("--backend", a.backend, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    app.add_option("--threads", a.threads, "Threads per rank (default: cores / ranks on the node)");
    app.add_option("--precision", a.precision, "double or float")->check(CLI::IsMember({"double", "float"}));
    app.add_flag("--verify", a.verify, "Compare with a dense reference GEMM (small problems)");
    app.add_option("--output", a.output, "Write R's shape and tile norms to this HDF5 file (--molecule: R itself, dataset r)");
    app.add_flag("--output-tiles", a.output_tiles, "With --output: write R's tiles too");
    app.add_option("--metrics", a.metrics, "Write JSON metrics to this file");
    app.add_option("--dgemm-size", a.dgemm_size, "Size of the square DGEMM timed as the reference rate (0: skip)");
    app.add_option("--repeat", a.repeat,
                   "Run the executor this many times on the same A tiles, as CCSD's iterations do (tile buffers and "
                   "their device registration reused), and report the best")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    app.add_flag("--plan-only", a.plan_only, "Run the inspector and report the plan, no arithmetic");
}

// Tile-size advice (issue 17), then the report's verbosity.
void add_advice_options(CLI::App& app, Args& a) {
    auto* tg = "Tile-size advice (predicted from this machine's GEMM rate per tile shape)";
    app.add_flag("--advise-tiles", a.advise_tiles,
                 "Print the candidate tilings (molecule: cluster sizes; others: consecutive tiles merged) with their "
                 "flops, GEMMs, predicted executor time and memory, and the recommendation; then stop")
        ->group(tg);
    app.add_option("--tiling", a.tiling, "given: the tiles as made; auto: run with the recommended candidate")
        ->check(CLI::IsMember({"given", "auto"}))
        ->group(tg);
    app.add_option("--rate-table", a.rate_table,
                   "Use this GEMM rate table (JSON, as cached by --calibrate) instead of this machine's")
        ->group(tg);
    app.add_flag("--measure-candidates", a.measure_candidates,
                 "With --advise-tiles or --tiling auto: run the executor on every candidate and print the measured time")
        ->group(tg);
    app.add_flag("--calibrate", a.calibrate,
                 "Measure this machine's GEMM rate table again (with --backend cuda: cuBLAS on device 0 and the copy "
                 "rates; cached in $TESSEL_CACHE_DIR, $XDG_CACHE_HOME/tessel or ~/.cache/tessel)")
        ->group(tg);
    app.add_flag("--verbose", a.verbose, "Per-process plan, per-rank executor lines, kernel choices");
    app.add_flag("--quiet", a.quiet, "Print nothing but errors");
}

}  // namespace

std::optional<int> parse_args(int argc, char** argv, int rank, Args& a) {
    CLI::App app{"tessel-abcd: the CCSD ABCD term R(ij,ab) = sum_cd T(ij,cd) V(cd,ab) as the block-sparse GEMM C = A B "
                 "with irregular tiles (Herault et al. 2020): inspector (column assignment, blocks, chunks), then "
                 "executor (cpu or cuda, MPI over a p x q grid). Run under mpiexec -n P for several ranks."};
    app.option_defaults()->always_capture_default();
    add_problem_options(app, a);
    add_run_options(app, a);
    add_advice_options(app, a);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        if (rank == 0) app.exit(e);
        return 0;
    } catch (const CLI::ParseError& e) {
        if (rank == 0) std::fprintf(stderr, "tessel-abcd: %s\n", e.what());
        return 1;
    }
    a.basis_given = app.count("--basis") > 0;
    return std::nullopt;
}

}  // namespace tessel::abcd::driver
