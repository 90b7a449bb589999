// tessel-spdnn: Graph Challenge sparse DNN inference (infer) and problem generator (generate):
// the command line only; the commands are infer_command.cpp and generate_command.cpp.
#include <mpi.h>
#include <omp.h>

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>

#include "apps/spdnn/driver/generate_command.hpp"
#include "apps/spdnn/driver/infer_command.hpp"
#include "core/app/byte_size.hpp"
#include "core/app/memory_check.hpp"
#include "core/app/run_mpi_app.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace {

using namespace tessel;
using namespace tessel::spdnn;

void add_infer_options(CLI::App& cmd, InferArgs& ia) {
    cmd.add_option("--network", ia.network, "network folder (holding neuron{N}/ or the n{N}-l{k}.tsv files)")->required();
    cmd.add_option("--images", ia.images, "images file (default: sparse-images-{N}.tsv beside neuron{N}/)");
    cmd.add_option("--neurons", ia.neurons, "neurons per layer N")->required();
    cmd.add_option("--layers", ia.layers, "layers L")->required();
    cmd.add_option("--bias", ia.bias, "bias (default: the Challenge's for N: -0.30, -0.35, -0.40, -0.45)");
    cmd.add_option("--num-images", ia.num_images, "image count (default: ids up to 60000 accepted, count = largest id)");
    cmd.add_option("--check", ia.check, "truth categories file: exit 1 on any difference");
    cmd.add_option("--output", ia.output, "write the categories (1-based, ascending) here");
    cmd.add_option("--backend", ia.backend, "auto, cpu or cuda")->capture_default_str();
    cmd.add_option("--kernel", ia.kernel, "auto, fused (app kernel), core (core tiled ELL SpMM), cusparse")
        ->capture_default_str();
    cmd.add_option("--register", ia.register_factor, "images per register tile (fused: 8, 12, 16, 32, 64)");
    cmd.add_option("--block-rows", ia.block_rows, "rows per tiled ELL block")->capture_default_str();
    cmd.add_option("--row-groups", ia.row_groups,
                   "cuda core kernel: output neurons per thread, 1 (off), 2, 4, 8 (resident weights; neurons with equal "
                   "inputs share a thread, --reorder auto puts them side by side)")
        ->capture_default_str();
    cmd.add_option("--row-group-layers", ia.row_group_layers,
                   "with --row-groups: only the first K layers in row groups, the later ones (few live images) "
                   "tiled; 0: all")
        ->capture_default_str();
    cmd.add_option("--reorder", ia.reorder, "group output neurons with equal inputs (auto: when N >= 4096 or with --row-groups), on, off")
        ->capture_default_str();
    cmd.add_option("--threads", ia.threads, "OpenMP threads per rank");
    cmd.add_option("--metrics", ia.metrics, "write the metrics JSON here");
    cmd.add_option("--cache-dir", ia.cache_dir, "folder for the binary caches (default: beside the inputs)");
    cmd.add_flag("--no-cache", ia.no_cache, "always parse the TSV files, write no cache");
    cmd.add_flag("--no-compaction", ia.no_compaction, "keep dead image rows (for comparison)");
    cmd.add_option("--batch-images", ia.batch_images,
                   "images per batch and rank (default: all whose two activation buffers fit 4 GiB)");
    cmd.add_flag("--stream-weights", ia.stream_weights,
                 "convert/load each layer's weights while the previous layer runs (double buffered)");
    cmd.add_option("--stream-source", ia.stream_source,
                   "host (memory) or disk (the binary cache, read layer by layer: the network is never loaded)")
        ->capture_default_str();
    cmd.add_flag("--no-rebalance", ia.no_rebalance, "never move live rows between ranks");
    cmd.add_option("--rebalance-threshold", ia.rebalance_threshold,
                   "rebalance when the largest live count exceeds this x the mean")
        ->capture_default_str();
    cmd.add_option("--repeat", ia.repeat, "run the inference this many times, report the best")->capture_default_str();
    cmd.add_flag("--reference", ia.reference, "also run the serial reference inference and compare (slow)");
    cmd.add_option("--reference-images", ia.reference_images,
                   "the reference runs on the first this many images only (default: all)");
    cmd.add_option("--max-rss", ia.max_rss, "exit 1 when the peak resident memory exceeds this (512M, 2G, ...)");
    cmd.add_flag("--verbose", ia.verbose, "one line per layer");
    cmd.add_flag("--quiet", ia.quiet, "print only errors and check results");
}

void add_generate_options(CLI::App& cmd, GenerateArgs& ga) {
    cmd.add_option("--neurons", ga.neurons, "neurons per layer N (1024, 4096, 16384, 65536; any 16·2^p)")->required();
    cmd.add_option("--layers", ga.layers, "layers L")->required();
    cmd.add_option("--images", ga.images, "number of images")->required();
    cmd.add_option("--out", ga.out, "output folder")->required();
    cmd.add_option("--seed", ga.seed, "random seed")->capture_default_str();
    cmd.add_option("--bias", ga.bias, "bias for the categories (default: the Challenge's for N)");
    cmd.add_flag("--no-categories", ga.no_categories, "skip the reference inference for the categories file");
    cmd.add_flag("--binary", ga.binary,
                 "write the binary caches instead of the text files, the network one layer at a time");
    cmd.add_flag("!--no-tiled", ga.tiled,
                 "with --binary: do not store the layers converted to tiled ELL (streaming from disk then converts)");
    cmd.add_option("--block-rows", ga.block_rows, "with --binary: rows per tiled ELL block of the stored layers")
        ->capture_default_str();
    cmd.add_option("--reorder", ga.reorder, "with --binary: the stored layers' row order (auto, on, off), as infer's")
        ->capture_default_str();
    cmd.add_option("--threads", ga.threads, "OpenMP threads");
}

// Numbers with a default when absent must be valid when given; outputs writable first.
void check_infer_args(const CLI::App& cmd, const InferArgs& ia, int rank) {
    auto refuse = [](const char* name, const std::string& what) { TESSEL_INVALID_INPUT(name, 0, what); };
    if (cmd.count("--bias") && !std::isfinite(ia.bias)) refuse("--bias", "must be a finite number");
    if (cmd.count("--num-images") && ia.num_images < 1)
        refuse("--num-images", "must be at least 1, not " + std::to_string(ia.num_images));
    if (cmd.count("--batch-images") && ia.batch_images < 1)
        refuse("--batch-images", "must be at least 1, not " + std::to_string(ia.batch_images));
    if (cmd.count("--reference-images") && ia.reference_images < 1)
        refuse("--reference-images", "must be at least 1, not " + std::to_string(ia.reference_images));
    if (!ia.max_rss.empty()) app::parse_bytes(ia.max_rss, "--max-rss");
    if (ia.neurons > 0 && ia.layers > 0)
        app::require_memory("--neurons " + std::to_string(ia.neurons),
                            "the row pointers of " + std::to_string(ia.layers) + " layers",
                            8.0 * double(ia.neurons + 1) * double(ia.layers));
    if (!ia.output.empty() && rank == 0) io::check_writable(ia.output, "--output");
    if (!ia.metrics.empty() && rank == 0) io::check_writable(ia.metrics, "--metrics");
}

int run(int argc, char** argv) {
    const int rank = comm::rank_of(MPI_COMM_WORLD);
    int code = 0;
    {
        CLI::App app{"tessel-spdnn: Graph Challenge sparse DNN inference (tiled ELL, fused bias + ReLU + cap, "
                     "compaction of dead image rows, MPI over images)"};
        app.require_subcommand(1);
        InferArgs ia;
        auto* infer_cmd = app.add_subcommand("infer", "run the network on the images, report the rate");
        add_infer_options(*infer_cmd, ia);
        GenerateArgs ga;
        auto* gen_cmd = app.add_subcommand("generate", "write a RadiX-Net network, images and categories in the official layout");
        add_generate_options(*gen_cmd, ga);

        try {
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            // --help prints the help and succeeds; any other parse error is one line, exit 1.
            if (e.get_exit_code() == 0) {
                if (rank == 0) app.exit(e);
            } else {
                if (rank == 0) std::fprintf(stderr, "tessel-spdnn: %s (see --help)\n", e.what());
                code = 1;
            }
            return code;
        }
        app::all_ranks(MPI_COMM_WORLD, [&] {
            if (infer_cmd->parsed()) check_infer_args(*infer_cmd, ia, rank);
            if (gen_cmd->parsed() && gen_cmd->count("--bias") && !std::isfinite(ga.bias))
                TESSEL_INVALID_INPUT("--bias", 0, "must be a finite number");
        });
        if (infer_cmd->parsed()) code = run_infer(ia);
        if (gen_cmd->parsed()) code = run_generate(ga);
    }
    return code;
}

}  // namespace

int main(int argc, char** argv) { return tessel::app::run_mpi_app("tessel-spdnn", argc, argv, run); }
