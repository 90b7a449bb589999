// tessel-xct: MemXCT-style X-ray CT reconstruction (CLI only; the work is in tessel_xct).
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "apps/xct/driver/beamline_cli.hpp"
#include "apps/xct/driver/memory_estimate.hpp"
#include "apps/xct/driver/reconstruct.hpp"
#include "apps/xct/parallel/parallel.hpp"
#include "core/app/memory_check.hpp"
#include "core/app/run_mpi_app.hpp"
#include "core/error.hpp"
#include "core/formats/grouped_ell.hpp"
#include "core/kernels/spmm.hpp"
#include "core/operator/default_tiles.hpp"
#include "core/types.hpp"
#include "io/atomic_output.hpp"

namespace {

using namespace tessel;
using namespace tessel::xct;

std::string joined(int argc, char** argv) {
    std::string line;
    for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
    return line;
}

// What CLI11 reads as text or plain numbers, turned into ReconstructOptions after parsing.
struct CliText {
    std::string input, sinogram, theta, slices, solver = "cgls", order = "hilbert", kernel = "tiled-ell",
                                                backend = "auto", precision = "single", memory_limit,
                                                colormap = "gray", reduction = "hier", exchange = "p2p",
                                                transpose = "auto", turn_symmetry = "auto", bank_order = "on";
    size_type phantom = 0, num_slices = 0;
    int threads = 0;
    bool no_pipeline = false;
    BeamlineOptions beamline;
};

void add_input_options(CLI::App& app, ReconstructOptions& o, CliText& t) {
    auto* in = app.add_option_group("input", "Exactly one source of sinograms");
    in->add_option("--input", t.input, "APS Data Exchange HDF5 file (/exchange/data, data_white, data_dark, theta)")
        ->check(CLI::ExistingFile);
    in->add_option("--sinogram", t.sinogram, "MemXCT raw sinogram (float32, slice-major num_slices x angles x channels)");
    in->add_option("--phantom", t.phantom, "Built-in Shepp-Logan phantom of N x N (3-D with --num-slices > 1)");
    in->require_option(1);
    app.add_option("--theta", t.theta, "Raw angles file (float32, radians) for --sinogram");
    app.add_option("--num-slices", t.num_slices,
                   "Slices in the raw sinogram file, or of the 3-D phantom (default 1)");
    app.add_option("--angles", o.input.angles, "Phantom: projection angles over [0, 180) degrees (default 3N/2)");
    app.add_option("--noise", o.input.noise, "Phantom: Poisson noise with this many incident photons per ray");
    app.add_option("--seed", o.input.seed, "Phantom: seed of the noise")
        ->capture_default_str();
    app.add_option("--slices", t.slices, "Slice range A:B (detector rows A .. B-1; default all)");
    t.beamline.add_input_options(app, o);
    app.add_option("--size", o.input.size, "Image size N (default: the channel count)");
}

void add_solver_options(CLI::App& app, ReconstructOptions& o, CliText& t) {
    app.add_option("--solver", t.solver, "cgls, sirt or fbp (filtered backprojection, one Aᵀ SpMM)")
        ->check(CLI::IsMember({"cgls", "sirt", "fbp"}))
        ->capture_default_str();
    t.beamline.add_fbp_options(app, o);
    app.add_option("--iterations", o.solver.iterations, "Iterations per batch of slices")->capture_default_str();
    app.add_option("--tol", o.solver.tol, "Stop a slice when its relative residual drops below this (0: never)")
        ->capture_default_str();
    app.add_flag("--nonneg", o.solver.nonneg, "SIRT: keep the image non-negative");
    app.add_option("--precision", t.precision,
                   "single (fp32 storage, fp64 scalars), double, or mixed (the operator's values in fp16, "
                   "vectors and sums in fp32)")
        ->check(CLI::IsMember({"single", "double", "mixed"}))
        ->capture_default_str();
}

void add_operator_options(CLI::App& app, ReconstructOptions& o, CliText& t) {
    app.add_option("--order", t.order, "Domain order: hilbert (MemXCT) or natural")
        ->check(CLI::IsMember({"natural", "hilbert"}))
        ->capture_default_str();
    app.add_option("--tile", o.tile, "Hilbert tile (power of two)")->capture_default_str();
    app.add_option("--kernel", t.kernel, "Local SpMM: tiled-ell (core's tiled ELL operator) or csr")
        ->check(CLI::IsMember({"tiled-ell", "csr"}))
        ->capture_default_str();
    app.add_option("--operator-cache", o.operator_cache,
                   "Folder where A and Aᵀ are stored under a key of the geometry and options, and reused by later "
                   "runs (one data rank, tiled ELL)");
    app.add_option("--turn-symmetry", t.turn_symmetry,
                   "on: the angles come in pairs 90° apart (an even number evenly spread over 180°), so A is built "
                   "and stored for the first half only and applied to the image and its quarter turn (half the "
                   "build, memory and bytes per iteration; one data rank); off: the whole A; auto: on when the "
                   "angles pair up, no --data-ranks is given and the half operator fits one rank")
        ->check(CLI::IsMember({"auto", "on", "off"}))
        ->capture_default_str();
    app.add_option("--transpose", t.transpose,
                   "Aᵀ: stored (built from A, the fastest products), scatter (only A is stored, Aᵀ·y runs "
                   "core's transposed kernel on A's tiles: half the memory, no transpose in the build, one data "
                   "rank) or auto (the one with the smaller predicted build + iterations time among those that fit one "
                   "rank; --dry-run prints why)")
        ->check(CLI::IsMember({"auto", "stored", "scatter"}))
        ->capture_default_str();
    app.add_option("--bank-order", t.bank_order,
                   "cuda: each row's entries of a stage reordered on the device so that a warp's lanes read distinct "
                   "shared-memory banks (A and a stored Aᵀ; not A with --transpose scatter); off keeps the built order")
        ->check(CLI::IsMember({"on", "off"}))
        ->capture_default_str();
    app.add_option("--row-groups", o.projector.row_groups,
                   "cuda: rays (pixels for A^T) per thread of the product kernel, 1, 2, 4 or 8: one read of a staged "
                   "value serves that many neighbours of the Hilbert order (--block-rows a multiple of 32 x the "
                   "groups, at most 512 threads; A^T stored and made on the host; one data rank)")
        ->capture_default_str();
    app.add_option("--block-rows", o.projector.tiles.block_rows, "Tiled ELL rows per block (multiple of 32)")
        ->capture_default_str();
    app.add_option("--buffer-entries", o.projector.tiles.buffer_entries,
                   "Tiled ELL staged inputs per stage (<= 65536; with --backend cuda the default is 768)")
        ->capture_default_str();
    app.add_option("--register-factor", o.projector.register_factor,
                   "Columns per register tile: 1, 2, 4, 8, 16, 32, 64 (core kernels: 4-32; 0: auto)");
    app.add_option("--backend", t.backend, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    app.add_option("--threads", t.threads, "OpenMP threads per rank (default: OMP_NUM_THREADS or all cores)");
}

void add_rank_options(CLI::App& app, ReconstructOptions& o, CliText& t) {
    app.add_option("--data-ranks", o.data_ranks, "Ranks that split A (default: as few as fit in memory)");
    app.add_option("--topology", o.topology, "Machine hierarchy to emulate, e.g. node=2,socket=2 (auto: detect)")
        ->capture_default_str();
    app.add_option("--reduction", t.reduction, "Reduction of partial results: hier or direct")
        ->check(CLI::IsMember({"hier", "direct"}))
        ->capture_default_str();
    app.add_option("--exchange", t.exchange, "MPI calls of the reductions: p2p or neighbor")
        ->check(CLI::IsMember({"p2p", "neighbor"}))
        ->capture_default_str();
    app.add_option("--minibatch", o.minibatch, "Columns per pipelined minibatch (0: all)")
        ->capture_default_str();
    app.add_flag("--no-pipeline", t.no_pipeline, "Do not overlap minibatches");
    app.add_flag("--cuda-aware-mpi", o.cuda_aware_mpi,
                 "With --backend cuda and data ranks: hand device buffers to MPI when it is CUDA-aware "
                 "(default: stage through pinned host memory)");
    app.add_option("--memory-limit", t.memory_limit, "Memory per rank, e.g. 8G (default: available / ranks on the node)");
    app.add_option("--batch-slices", o.batch_slices, "Slices per batch on one rank (default: as many as fit)");
    app.add_flag("--dry-run", o.dry_run, "Print the memory estimate and the plan, then stop");
}

void add_output_options(CLI::App& app, ReconstructOptions& o, CliText& t) {
    app.add_option("--checkpoint", o.checkpoint_path, "Checkpoint file (default: OUTPUT.ckpt.h5)");
    app.add_option("--checkpoint-every", o.checkpoint_every, "Write a checkpoint every this many iterations");
    app.add_flag("--resume", o.resume, "Continue from the checkpoint");
    app.add_option("--stop-after", o.stop_after, "Stop after this many iterations as if killed (for tests)")
        ->group("");
    app.add_option("--output", o.output, "HDF5 volume (/exchange/recon, slices x N x N float32)");
    app.add_option("--png", o.png_dir, "Folder for PNG previews");
    app.add_option("--tiff", o.tiff_dir, "Folder for a 32-bit float TIFF per slice (recon_00042.tiff; Fiji: File > "
                                         "Import > Image Sequence)");
    app.add_option("--png-slices", o.png_slices, "Slices to preview (absolute numbers; default the middle one)")
        ->delimiter(',');
    app.add_option("--colormap", t.colormap, "gray or viridis")->check(CLI::IsMember({"gray", "grey", "viridis"}))
        ->capture_default_str();
    app.add_option("--metrics", o.metrics_path, "JSON metrics file (phases, rates, sizes)");
    app.add_option("--save-sinogram", o.save_sinogram,
                   "Also write the sinograms as PREFIX.sino and PREFIX.theta (MemXCT raw; with --iterations 0 "
                   "only the files)");
    app.add_option("--save-exchange", o.save_exchange,
                   "Also write the sinograms as an APS Data Exchange file for --input (uint16 counts, theta:y:x, "
                   "white 60000, dark 100; phantom line integrals scaled so the darkest ray transmits e^-2; "
                   "with --iterations 0 only the file)");
    app.add_flag("--quiet", o.quiet, "Only errors and warnings");
    app.add_flag("--verbose", o.verbose, "Operator details");
}

// Parses the command line; returns an exit code when the run ends here (help, a bad option).
std::optional<int> parse(CLI::App& app, int argc, char** argv, int rank) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        if (rank == 0) std::cout << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp& e) {
        if (rank == 0) std::cout << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::ParseError& e) {
        // Every rank parsed the same line: rank 0 says it, all leave.
        std::string what = e.what();
        if (what.empty()) what = e.get_name();
        if (rank == 0) std::fprintf(stderr, "tessel-xct: %s (see --help)\n", what.c_str());
        return 1;
    }
    return std::nullopt;
}

// Numbers with a default when absent must be valid when given (no silent fallback), and
// outputs writable before the work; every rank checks, rank 0 speaks.
void check_numbers_and_outputs(const CLI::App& app, const ReconstructOptions& o, const CliText& t) {
    app::all_ranks(MPI_COMM_WORLD, [&] {
        auto given = [&](const char* name) { return app.count(name) > 0; };
        auto refuse = [](const char* name, const std::string& what) { TESSEL_INVALID_INPUT(name, 0, what); };
        if (given("--phantom") && t.phantom < 1) refuse("--phantom", "must be at least 1, not " + std::to_string(t.phantom));
        if (given("--num-slices") && t.num_slices < 1)
            refuse("--num-slices", "must be at least 1, not " + std::to_string(t.num_slices));
        if (given("--angles") && o.input.angles < 1)
            refuse("--angles", "must be at least 1, not " + std::to_string(o.input.angles));
        if (given("--noise") && !(o.input.noise > 0 && std::isfinite(o.input.noise)))
            refuse("--noise", "must be a positive photon count, not " + std::to_string(o.input.noise));
        if (given("--size") && o.input.size < 1) refuse("--size", "must be at least 1, not " + std::to_string(o.input.size));
        if (given("--checkpoint-every") && o.checkpoint_every < 1)
            refuse("--checkpoint-every", "must be at least 1, not " + std::to_string(o.checkpoint_every));
        if (o.solver.iterations < 0) refuse("--iterations", "must not be negative");
        if (t.phantom > 0) {
            // The phantom's sinograms (at least N channels per angle, float32) before anything
            // is built: --angles 2000000000 is refused here, not by std::bad_alloc later.
            const double angles = o.input.angles > 0 ? double(o.input.angles) : 1.5 * double(t.phantom);
            const double slices = t.num_slices > 0 ? double(t.num_slices) : 1.0;
            app::require_memory("--phantom " + std::to_string(t.phantom),
                                "the sinograms (" + std::to_string(static_cast<long long>(angles)) + " angles x " +
                                    std::to_string(t.phantom) + " channels x " +
                                    std::to_string(static_cast<long long>(slices)) + " slices, float32)",
                                4.0 * angles * double(t.phantom) * slices);
        }
        if (!o.output.empty()) io::check_writable(o.output, "--output");
        if (!o.metrics_path.empty()) io::check_writable(o.metrics_path, "--metrics");
        if (!o.checkpoint_path.empty()) io::check_writable(o.checkpoint_path, "--checkpoint");
        if (!o.save_exchange.empty()) io::check_writable(o.save_exchange, "--save-exchange");
        if (!o.save_sinogram.empty()) io::check_writable(o.save_sinogram + ".sino", "--save-sinogram");
    });
}

// The input the options name (exactly one, CLI11 checked).
void choose_input(ReconstructOptions& o, const CliText& t) {
    if (!t.input.empty()) {
        o.input.kind = InputKind::data_exchange;
        o.input.path = t.input;
    } else if (!t.sinogram.empty()) {
        o.input.kind = InputKind::raw;
        o.input.path = t.sinogram;
        if (t.theta.empty()) TESSEL_INVALID_INPUT("theta", 0, "--sinogram needs --theta FILE (angles in radians)");
        o.input.theta_path = t.theta;
    } else {
        o.input.kind = InputKind::phantom;
        o.input.phantom_size = t.phantom;
    }
    o.input.num_slices = t.num_slices;
    if (o.input.channels > 0 && o.input.kind != InputKind::raw)
        TESSEL_INVALID_INPUT("--channels", 0, "states a raw sinogram's width: give it with --sinogram");
    if (!t.slices.empty()) o.input.slices = parse_slice_range(t.slices);
}

// --row-groups: the device kernel of a tiled ELL A and a stored Aᵀ.
void check_row_group_options(const ReconstructOptions& o) {
    const ProjectorOptions& p = o.projector;
    if (p.row_groups == 1) return;
    if (p.backend != Backend::cuda)
        TESSEL_INVALID_INPUT("--row-groups", 0, "the row-group kernel runs on cuda: add --backend cuda");
    if (p.kernel != Kernel::tiled_ell)
        TESSEL_INVALID_INPUT("--row-groups", 0, "row groups are a tiled ELL form; drop --kernel csr");
    if (p.scatter_transpose)
        TESSEL_INVALID_INPUT("--row-groups", 0, "the scatter kernel runs on A's tiles, not row groups; drop --transpose scatter");
    check_row_groups(p.row_groups, p.tiles.block_rows);
    if (p.tiles.block_rows / p.row_groups > grouped_ell_max_threads)
        TESSEL_INVALID_INPUT("--row-groups", 0,
                             "--block-rows " + std::to_string(p.tiles.block_rows) + " in groups of " +
                                 std::to_string(p.row_groups) + " is " +
                                 std::to_string(p.tiles.block_rows / p.row_groups) +
                                 " threads a block; the kernel takes at most " +
                                 std::to_string(grouped_ell_max_threads));
}

// The texts parsed into the options' enums and sizes; conflicts refused.
void apply_choices(ReconstructOptions& o, const CliText& t) {
    t.beamline.apply(o, t.solver);
    o.solver.algorithm = o.fbp ? Algorithm::cgls : parse_algorithm(t.solver);
    o.double_precision = t.precision == "double";
    o.projector.half_values = t.precision == "mixed";
    o.order = parse_domain_order(t.order);
    o.projector.kernel = parse_format(t.kernel);
    o.projector.scatter_transpose = t.transpose == "scatter";
    o.auto_transpose = t.transpose == "auto";
    o.turn_symmetry = parse_turn_symmetry(t.turn_symmetry);
    o.projector.bank_order = t.bank_order == "on";
    operator_config(o.projector);  // refuses --transpose scatter or --precision mixed with --kernel csr now
    o.projector.backend = parse_backend(t.backend);
    if (o.projector.backend == Backend::automatic) o.projector.backend = resolve_backend(Backend::automatic);
    check_row_group_options(o);
    o.hierarchical = t.reduction == "hier";
    o.exchange = comm::parse_exchange_method(t.exchange);
    o.pipelined = !t.no_pipeline;
    if (!t.memory_limit.empty()) {
        o.memory_limit = parse_bytes(t.memory_limit);
        app::require_limit_within_node("--memory-limit", o.memory_limit);
    }
    o.colormap = io::parse_colormap(t.colormap);
    if (!o.save_exchange.empty() && (o.save_exchange == o.output || o.save_exchange == t.input))
        TESSEL_INVALID_INPUT("save-exchange", 0, o.save_exchange + " is also the " +
                                                     (o.save_exchange == t.input ? "--input" : "--output") + " file");
    if (o.resume && o.checkpoint_path.empty() && o.output.empty())
        TESSEL_INVALID_INPUT("resume", 0, "--resume needs --checkpoint FILE or --output FILE");
}

int run(int argc, char** argv) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CLI::App app{"tessel-xct: X-ray CT reconstruction the MemXCT way (exact parallel-beam projector, "
                 "Hilbert-ordered domains, tiled ELL A and A^T, many slices as the columns of one SpMM, "
                 "batch + data parallel over MPI ranks)"};
    app.set_help_all_flag("--help-all", "All options");
    ReconstructOptions o;
    CliText t;
    add_input_options(app, o, t);
    add_solver_options(app, o, t);
    add_operator_options(app, o, t);
    add_rank_options(app, o, t);
    add_output_options(app, o, t);
    if (const auto code = parse(app, argc, argv, rank)) return *code;
    check_numbers_and_outputs(app, o, t);
    o.command_line = joined(argc, argv);
    o.keep_volume = false;  // the outputs are written round by round; rank 0 holds one round
    if (t.threads > 0) omp_set_num_threads(t.threads);
    choose_input(o, t);
    apply_choices(o, t);
    // On a GPU, core's stage size for cuda unless --buffer-entries chose one.
    if (o.projector.backend == Backend::cuda && app.count("--buffer-entries") == 0)
        o.projector.tiles.buffer_entries = default_tiles(Backend::cuda).buffer_entries;
    const auto result = reconstruct(o, MPI_COMM_WORLD, std::cout);
    if (result.stopped) {
        std::cout.flush();
        return 3;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) { return tessel::app::run_mpi_app("tessel-xct", argc, argv, run); }
