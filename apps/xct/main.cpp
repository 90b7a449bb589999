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
#include <sstream>
#include <string>
#include <thread>

#include "apps/xct/beamline_cli.hpp"
#include "apps/xct/memory_estimate.hpp"
#include "apps/xct/parallel.hpp"
#include "apps/xct/reconstruct.hpp"
#include "core/app/memory_check.hpp"
#include "core/app/run_mpi_app.hpp"
#include "io/atomic_output.hpp"
#include "core/error.hpp"
#include "core/kernels/spmm.hpp"
#include "core/types.hpp"

namespace {

using namespace tessel;
using namespace tessel::xct;

std::string joined(int argc, char** argv) {
    std::string line;
    for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
    return line;
}

int run(int argc, char** argv) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    CLI::App app{"tessel-xct: X-ray CT reconstruction the MemXCT way (exact parallel-beam projector, "
                 "Hilbert-ordered domains, tiled ELL A and A^T, many slices as the columns of one SpMM, "
                 "batch + data parallel over MPI ranks)"};
    app.set_help_all_flag("--help-all", "All options");
    ReconstructOptions o;
    std::string input, sinogram, theta, slices, solver = "cgls", order = "hilbert", kernel = "tiled-ell",
                                              backend = "auto", precision = "single", memory_limit,
                                              colormap = "gray", reduction = "hier", exchange = "p2p";
    size_type phantom = 0, num_slices = 0;
    BeamlineOptions beamline;
    int threads = 0;
    bool no_pipeline = false;

    auto* in = app.add_option_group("input", "Exactly one source of sinograms");
    in->add_option("--input", input, "APS Data Exchange HDF5 file (/exchange/data, data_white, data_dark, theta)")
        ->check(CLI::ExistingFile);
    in->add_option("--sinogram", sinogram, "MemXCT raw sinogram (float32, slice-major num_slices x angles x channels)");
    in->add_option("--phantom", phantom, "Built-in Shepp-Logan phantom of N x N (3-D with --num-slices > 1)");
    in->require_option(1);
    app.add_option("--theta", theta, "Raw angles file (float32, radians) for --sinogram");
    app.add_option("--num-slices", num_slices,
                   "Slices in the raw sinogram file, or of the 3-D phantom (default 1)");
    app.add_option("--angles", o.input.angles, "Phantom: projection angles over [0, 180) degrees (default 3N/2)");
    app.add_option("--noise", o.input.noise, "Phantom: Poisson noise with this many incident photons per ray");
    app.add_option("--seed", o.input.seed, "Phantom: seed of the noise")
        ->capture_default_str();
    app.add_option("--slices", slices, "Slice range A:B (detector rows A .. B-1; default all)");
    beamline.add_input_options(app, o);
    app.add_option("--size", o.input.size, "Image size N (default: the channel count)");

    app.add_option("--solver", solver, "cgls, sirt or fbp (filtered backprojection, one Aᵀ SpMM)")
        ->check(CLI::IsMember({"cgls", "sirt", "fbp"}))
        ->capture_default_str();
    beamline.add_fbp_options(app, o);
    app.add_option("--iterations", o.solver.iterations, "Iterations per batch of slices")->capture_default_str();
    app.add_option("--tol", o.solver.tol, "Stop a slice when its relative residual drops below this (0: never)")
        ->capture_default_str();
    app.add_flag("--nonneg", o.solver.nonneg, "SIRT: keep the image non-negative");
    app.add_option("--precision", precision,
                   "single (fp32 storage, fp64 scalars), double, or mixed (the operator's values in fp16, "
                   "vectors and sums in fp32)")
        ->check(CLI::IsMember({"single", "double", "mixed"}))
        ->capture_default_str();

    app.add_option("--order", order, "Domain order: hilbert (MemXCT) or natural")
        ->check(CLI::IsMember({"natural", "hilbert"}))
        ->capture_default_str();
    app.add_option("--tile", o.tile, "Hilbert tile (power of two)")->capture_default_str();
    app.add_option("--kernel", kernel, "Local SpMM: tiled-ell (core's tiled ELL operator) or csr")
        ->check(CLI::IsMember({"tiled-ell", "csr"}))
        ->capture_default_str();
    app.add_option("--block-rows", o.projector.tiles.block_rows, "Tiled ELL rows per block (multiple of 32)")
        ->capture_default_str();
    app.add_option("--buffer-entries", o.projector.tiles.buffer_entries,
                   "Tiled ELL staged inputs per stage (<= 65536)")
        ->capture_default_str();
    app.add_option("--register-factor", o.projector.register_factor,
                   "Columns per register tile: 1, 2, 4, 8, 16, 32, 64 (core kernels: 4-32; 0: auto)");
    app.add_option("--backend", backend, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    app.add_option("--threads", threads, "OpenMP threads per rank (default: OMP_NUM_THREADS or all cores)");

    app.add_option("--data-ranks", o.data_ranks, "Ranks that split A (default: as few as fit in memory)");
    app.add_option("--topology", o.topology, "Machine hierarchy to emulate, e.g. node=2,socket=2 (auto: detect)")
        ->capture_default_str();
    app.add_option("--reduction", reduction, "Reduction of partial results: hier or direct")
        ->check(CLI::IsMember({"hier", "direct"}))
        ->capture_default_str();
    app.add_option("--exchange", exchange, "MPI calls of the reductions: p2p or neighbor")
        ->check(CLI::IsMember({"p2p", "neighbor"}))
        ->capture_default_str();
    app.add_option("--minibatch", o.minibatch, "Columns per pipelined minibatch (0: all)")
        ->capture_default_str();
    app.add_flag("--no-pipeline", no_pipeline, "Do not overlap minibatches");
    app.add_flag("--cuda-aware-mpi", o.cuda_aware_mpi,
                 "With --backend cuda and data ranks: hand device buffers to MPI when it is CUDA-aware "
                 "(default: stage through pinned host memory)");

    app.add_option("--memory-limit", memory_limit, "Memory per rank, e.g. 8G (default: available / ranks on the node)");
    app.add_option("--batch-slices", o.batch_slices, "Slices per batch on one rank (default: as many as fit)");
    app.add_flag("--dry-run", o.dry_run, "Print the memory estimate and the plan, then stop");

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
    app.add_option("--colormap", colormap, "gray or viridis")->check(CLI::IsMember({"gray", "grey", "viridis"}))
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

    // Numbers with a default when absent must be valid when given (no silent fallback), and
    // outputs writable before the work; every rank checks, rank 0 speaks.
    app::all_ranks(MPI_COMM_WORLD, [&] {
        auto given = [&](const char* name) { return app.count(name) > 0; };
        auto refuse = [](const char* name, const std::string& what) { TESSEL_INVALID_INPUT(name, 0, what); };
        if (given("--phantom") && phantom < 1) refuse("--phantom", "must be at least 1, not " + std::to_string(phantom));
        if (given("--num-slices") && num_slices < 1)
            refuse("--num-slices", "must be at least 1, not " + std::to_string(num_slices));
        if (given("--angles") && o.input.angles < 1)
            refuse("--angles", "must be at least 1, not " + std::to_string(o.input.angles));
        if (given("--noise") && !(o.input.noise > 0 && std::isfinite(o.input.noise)))
            refuse("--noise", "must be a positive photon count, not " + std::to_string(o.input.noise));
        if (given("--size") && o.input.size < 1) refuse("--size", "must be at least 1, not " + std::to_string(o.input.size));
        if (given("--checkpoint-every") && o.checkpoint_every < 1)
            refuse("--checkpoint-every", "must be at least 1, not " + std::to_string(o.checkpoint_every));
        if (o.solver.iterations < 0) refuse("--iterations", "must not be negative");
        if (phantom > 0) {
            // The phantom's sinograms (at least N channels per angle, float32) before anything
            // is built: --angles 2000000000 is refused here, not by std::bad_alloc later.
            const double angles = o.input.angles > 0 ? double(o.input.angles) : 1.5 * double(phantom);
            const double slices = num_slices > 0 ? double(num_slices) : 1.0;
            app::require_memory("--phantom " + std::to_string(phantom),
                                "the sinograms (" + std::to_string(static_cast<long long>(angles)) + " angles x " +
                                    std::to_string(phantom) + " channels x " +
                                    std::to_string(static_cast<long long>(slices)) + " slices, float32)",
                                4.0 * angles * double(phantom) * slices);
        }
        if (!o.output.empty()) io::check_writable(o.output, "--output");
        if (!o.metrics_path.empty()) io::check_writable(o.metrics_path, "--metrics");
        if (!o.checkpoint_path.empty()) io::check_writable(o.checkpoint_path, "--checkpoint");
        if (!o.save_exchange.empty()) io::check_writable(o.save_exchange, "--save-exchange");
        if (!o.save_sinogram.empty()) io::check_writable(o.save_sinogram + ".sino", "--save-sinogram");
    });
    {
        o.command_line = joined(argc, argv);
        if (threads > 0) omp_set_num_threads(threads);
        if (!input.empty()) {
            o.input.kind = InputKind::data_exchange;
            o.input.path = input;
        } else if (!sinogram.empty()) {
            o.input.kind = InputKind::raw;
            o.input.path = sinogram;
            if (theta.empty()) TESSEL_INVALID_INPUT("theta", 0, "--sinogram needs --theta FILE (angles in radians)");
            o.input.theta_path = theta;
        } else {
            o.input.kind = InputKind::phantom;
            o.input.phantom_size = phantom;
        }
        o.input.num_slices = num_slices;
        if (!slices.empty()) o.input.slices = parse_slice_range(slices);
        beamline.apply(o, solver);
        o.solver.algorithm = o.fbp ? Algorithm::cgls : parse_algorithm(solver);
        o.double_precision = precision == "double";
        o.projector.half_values = precision == "mixed";
        o.order = parse_domain_order(order);
        o.projector.kernel = parse_kernel(kernel);
        o.projector.backend = parse_backend(backend);
        if (o.projector.backend == Backend::automatic) o.projector.backend = resolve_backend(Backend::automatic);
        o.hierarchical = reduction == "hier";
        o.exchange = comm::parse_exchange_method(exchange);
        o.pipelined = !no_pipeline;
        if (!memory_limit.empty()) o.memory_limit = parse_bytes(memory_limit);
        o.colormap = io::parse_colormap(colormap);
        if (!o.save_exchange.empty() && (o.save_exchange == o.output || o.save_exchange == input))
            TESSEL_INVALID_INPUT("save-exchange", 0, o.save_exchange + " is also the " +
                                                         (o.save_exchange == input ? "--input" : "--output") + " file");
        if (o.resume && o.checkpoint_path.empty() && o.output.empty())
            TESSEL_INVALID_INPUT("resume", 0, "--resume needs --checkpoint FILE or --output FILE");

        const auto result = reconstruct(o, MPI_COMM_WORLD, std::cout);
        if (result.stopped) {
            std::cout.flush();
            return 3;
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) { return tessel::app::run_mpi_app("tessel-xct", argc, argv, run); }
