// tessel-spdnn: Graph Challenge sparse DNN inference (infer) and problem generator (generate).
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

#include "apps/spdnn/cache.hpp"
#include "apps/spdnn/generator.hpp"
#include "apps/spdnn/inference.hpp"
#include "apps/spdnn/layer_weights.hpp"
#include "apps/spdnn/network.hpp"
#include "apps/spdnn/reference_inference.hpp"
#include "apps/spdnn/report.hpp"
#include "core/app/memory_check.hpp"
#include "core/app/run_mpi_app.hpp"
#include "io/atomic_output.hpp"
#include "core/error.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"
#include "io/graph_challenge.hpp"

namespace {

using namespace tessel;
using namespace tessel::spdnn;

struct InferArgs {
    std::string network, images, check, output, metrics, cache_dir, backend = "auto", kernel = "auto",
        stream_source = "host", reorder = "auto";
    size_type neurons = 0, layers = 0, num_images = 0, batch_images = 0, block_rows = 256;
    double bias = std::numeric_limits<double>::quiet_NaN();
    int threads = 0, register_factor = 0, repeat = 1;
    bool no_cache = false, no_compaction = false, stream_weights = false, no_rebalance = false,
         verbose = false, quiet = false, reference = false;
    double rebalance_threshold = 1.25;
};

struct GenerateArgs {
    std::string out;
    size_type neurons = 0, layers = 0, images = 0;
    std::uint64_t seed = 2020;
    double bias = std::numeric_limits<double>::quiet_NaN();
    bool no_categories = false;
    int threads = 0;
};

int rank_of(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

// Rank 0 builds the caches that the others then load; its errors reach them as QuietExit.
using app::root_first;

Value bias_for(double given, size_type neurons) {
    if (!std::isnan(given)) {
        if (!std::isfinite(given)) TESSEL_INVALID_INPUT("--bias", 0, "must be a finite number");
        return static_cast<Value>(given);
    }
    return official_bias(neurons);
}

int run_infer(const InferArgs& a) {
    MPI_Comm comm = MPI_COMM_WORLD;
    const int rank = rank_of(comm);
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    if (a.threads > 0) omp_set_num_threads(a.threads);
    if (a.neurons < 1) TESSEL_INVALID_INPUT("--neurons", 0, "must be positive");
    if (a.layers < 1) TESSEL_INVALID_INPUT("--layers", 0, "must be positive");
    const Value bias = bias_for(a.bias, a.neurons);
    const auto paths = problem_paths(a.network, a.neurons, a.layers);
    const std::string images_path = a.images.empty() ? paths.images : a.images;
    CacheOptions cache;
    cache.enabled = !a.no_cache;
    cache.dir = a.cache_dir;
    const bool say = rank == 0 && !a.quiet;

    PhaseTimes setup;
    CacheReport net_report, img_report;
    Timer t;
    Network network = root_first(comm, [&] {
        return load_network(paths.layer_dir, a.neurons, a.layers, bias, cache, &net_report);
    });
    setup.add("read_network", t.seconds());
    t.restart();
    Images images = root_first(comm, [&] {
        return load_images(images_path, a.neurons, a.num_images, cache, &img_report);
    });
    setup.add("read_images", t.seconds());
    std::vector<std::int64_t> truth;
    if (!a.check.empty()) truth = root_first(comm, [&] { return read_categories(a.check, images.rows()); });
    if (say) {
        std::printf("tessel-spdnn: N = %lld, L = %lld, %lld images (%lld features), bias %g, %d rank(s) x %d thread(s)\n",
                    static_cast<long long>(a.neurons), static_cast<long long>(a.layers),
                    static_cast<long long>(images.rows()), static_cast<long long>(images.nnz()), double(bias),
                    ranks, omp_get_max_threads());
        auto cache_line = [](const char* what, const CacheReport& r, double sec) {
            std::printf("read %s: %.3f s%s%s%s\n", what, sec,
                        r.hit ? " (binary cache)" : (r.written ? " (parsed; binary cache written)" : " (parsed)"),
                        r.note.empty() ? "" : "; ", r.note.c_str());
        };
        cache_line("network", net_report, setup.get("read_network"));
        cache_line("images", img_report, setup.get("read_images"));
        if (!(bias <= 0) && !a.no_compaction)
            std::printf("note: bias %g > 0 revives all-zero rows; compaction is off\n", double(bias));
    }

    // Weights as tiled ELL: all now (not timed as inference), or streamed layer by layer.
    t.restart();
    const int reorder = a.reorder == "auto" ? -1 : a.reorder == "on" ? 1 : a.reorder == "off" ? 0 : -2;
    if (reorder == -2) TESSEL_INVALID_INPUT("--reorder", 0, "'" + a.reorder + "' is not auto, on or off");
    const auto ell = weight_layout(a.neurons, a.block_rows, reorder);
    const NetworkShape shape = shape_of(network);
    std::unique_ptr<LayerWeights> weights;
    if (!a.stream_weights) {
        weights = resident_weights(network, ell);
    } else if (a.stream_source == "host") {
        weights = streamed_weights(a.layers, [&network](size_type k) { return network.layers[k]; }, ell,
                                   "streamed from host memory");
    } else if (a.stream_source == "disk") {
        if (!cache.enabled) TESSEL_INVALID_INPUT("--stream-source", 0, "disk streams from the binary cache; drop --no-cache");
        const std::string file = network_cache_path(paths.layer_dir, a.neurons, a.layers, cache);
        weights = streamed_weights(a.layers, [file](size_type k) { return read_cached_layer(file, k); }, ell,
                                   "streamed from disk (" + file + ")");
        // The layers now come from the file; the host copy is not needed.
        network.layers.clear();
        network.layers.shrink_to_fit();
    } else {
        TESSEL_INVALID_INPUT("--stream-source", 0, "'" + a.stream_source + "' is not host or disk");
    }
    setup.add("prepare_weights", t.seconds());

    InferenceOptions opt;
    opt.backend = parse_backend(a.backend);
    opt.kernel = parse_kernel(a.kernel);
    opt.register_factor = a.register_factor;
    opt.compaction = !a.no_compaction;
    opt.batch_images = a.batch_images;
    opt.rebalance = !a.no_rebalance;
    opt.rebalance_threshold = a.rebalance_threshold;
    opt.comm = ranks > 1 ? comm : MPI_COMM_NULL;
    opt.progress = !a.quiet;
    opt.verbose = a.verbose;

    std::vector<double> runs;
    InferenceResult result;
    for (int rep = 0; rep < std::max(1, a.repeat); ++rep) {
        auto r = infer(shape, *weights, images, opt);
        runs.push_back(r.seconds);
        if (rep == 0 || r.seconds < result.seconds) result = std::move(r);
    }

    CheckResult check;
    bool reference_ok = true;
    std::vector<std::int64_t> reference_answer;
    if (a.reference && rank == 0) {
        if (network.layers.empty())
            TESSEL_INVALID_INPUT("--reference", 0, "needs the network in memory (not --stream-source disk)");
        ReferenceOptions ro;
        ro.parallel_batches = true;
        ro.batch_images = 16;
        Timer rt;
        reference_answer = reference_categories(network, images, ro);
        reference_ok = reference_answer == result.categories;
        setup.add("reference", rt.seconds());
    }
    if (!a.check.empty()) check = compare_categories(result.categories, truth);

    if (rank == 0) {
        if (!a.output.empty()) io::write_categories(a.output, result.categories);
        if (!a.quiet) {
            std::printf("%s", summary_text(result, a.neurons, a.layers).c_str());
            if (runs.size() > 1) {
                std::printf("repeats:");
                for (double s : runs) std::printf(" %.4f", s);
                std::printf(" s (best reported)\n");
            }
            std::printf("categories: %zu%s%s\n", result.categories.size(),
                        a.output.empty() ? "" : ", written to ", a.output.c_str());
        }
        if (a.reference)
            std::printf("reference: %s (%zu categories from the serial reference inference, %.1f s)\n",
                        reference_ok ? "equal" : "DIFFERENT", reference_answer.size(), setup.get("reference"));
        if (!a.check.empty()) {
            if (check.ok())
                std::printf("check: OK, %zu categories equal %s\n", truth.size(), a.check.c_str());
            else {
                std::printf("check: FAILED against %s: %lld missing, %lld extra\n", a.check.c_str(),
                            static_cast<long long>(check.missing), static_cast<long long>(check.extra));
                for (const auto& line : check.first) std::printf("  %s\n", line.c_str());
            }
        }
        if (!a.metrics.empty()) {
            Metrics m("tessel-spdnn");
            auto& j = m.json();
            j["command"] = "infer";
            j["neurons"] = a.neurons;
            j["layers"] = a.layers;
            j["bias"] = bias;
            j["threads"] = omp_get_max_threads();
            j["network"] = a.network;
            j["images_file"] = images_path;
            j["inference"] = result_json(result);
            j["repeats_seconds"] = runs;
            j["cache"] = {{"network", {{"path", net_report.path}, {"hit", net_report.hit}, {"note", net_report.note}}},
                          {"images", {{"path", img_report.path}, {"hit", img_report.hit}, {"note", img_report.note}}}};
            if (!a.check.empty())
                j["check"] = {{"file", a.check}, {"ok", check.ok()}, {"missing", check.missing}, {"extra", check.extra}};
            if (a.reference) j["reference_equal"] = reference_ok;
            m.set_phases(setup);
            m.write(a.metrics);
        }
    }
    std::fflush(stdout);
    if (!check.ok() || !reference_ok) {
        if (rank == 0)
            std::fprintf(stderr, "tessel-spdnn: %s\n",
                         !check.ok() ? ("categories differ from " + a.check).c_str()
                                     : "categories differ from the reference inference");
        return 1;
    }
    return 0;
}

int run_generate(const GenerateArgs& a) {
    if (rank_of(MPI_COMM_WORLD) != 0) return 0;  // one writer
    if (a.threads > 0) omp_set_num_threads(a.threads);
    const Value bias = bias_for(a.bias, a.neurons);
    Timer t;
    auto network = generate_network(a.neurons, a.layers, bias, a.seed);
    auto images = generate_images(a.neurons, a.images, a.seed);
    std::printf("generated N = %lld, L = %lld (RadiX-Net, %lld edges), %lld images (%.1f features each) in %.2f s\n",
                static_cast<long long>(a.neurons), static_cast<long long>(a.layers),
                static_cast<long long>(network.total_edges()), static_cast<long long>(a.images),
                double(images.nnz()) / double(a.images), t.seconds());
    std::vector<std::int64_t> categories;
    if (!a.no_categories) {
        t.restart();
        ReferenceOptions ro;
        ro.batch_images = 4;
        ro.stop_when_all_zero = true;
        ro.parallel_batches = true;
        categories = reference_categories(network, images, ro);
        std::printf("categories by the reference inference: %zu of %lld images (%.2f s)\n", categories.size(),
                    static_cast<long long>(a.images), t.seconds());
    }
    t.restart();
    auto files = write_problem(a.out, network, images, a.no_categories ? nullptr : &categories);
    std::printf("wrote %s/, %s%s%s (%.2f s)\n", files.layer_dir.c_str(), files.images.c_str(),
                files.categories.empty() ? "" : ", ", files.categories.c_str(), t.seconds());
    return 0;
}

int run(int argc, char** argv) {
    const int rank = rank_of(MPI_COMM_WORLD);
    int code = 0;
    {
        CLI::App app{"tessel-spdnn: Graph Challenge sparse DNN inference (tiled ELL, fused bias + ReLU + cap, "
                     "compaction of dead image rows, MPI over images)"};
        app.require_subcommand(1);
        InferArgs ia;
        auto* infer_cmd = app.add_subcommand("infer", "run the network on the images, report the rate");
        infer_cmd->add_option("--network", ia.network, "network folder (holding neuron{N}/ or the n{N}-l{k}.tsv files)")
            ->required();
        infer_cmd->add_option("--images", ia.images, "images file (default: sparse-images-{N}.tsv beside neuron{N}/)");
        infer_cmd->add_option("--neurons", ia.neurons, "neurons per layer N")->required();
        infer_cmd->add_option("--layers", ia.layers, "layers L")->required();
        infer_cmd->add_option("--bias", ia.bias, "bias (default: the Challenge's for N: -0.30, -0.35, -0.40, -0.45)");
        infer_cmd->add_option("--num-images", ia.num_images,
                              "image count (default: ids up to 60000 accepted, count = largest id)");
        infer_cmd->add_option("--check", ia.check, "truth categories file: exit 1 on any difference");
        infer_cmd->add_option("--output", ia.output, "write the categories (1-based, ascending) here");
        infer_cmd->add_option("--backend", ia.backend, "auto, cpu or cuda")->capture_default_str();
        infer_cmd->add_option("--kernel", ia.kernel, "auto, fused (app kernel), core (core tiled ELL SpMM), cusparse")
            ->capture_default_str();
        infer_cmd->add_option("--register", ia.register_factor, "images per register tile (fused: 8, 12, 16, 32, 64)");
        infer_cmd->add_option("--block-rows", ia.block_rows, "rows per tiled ELL block")->capture_default_str();
        infer_cmd->add_option("--reorder", ia.reorder,
                              "group output neurons with equal inputs (auto: when N >= 4096), on, off")
            ->capture_default_str();
        infer_cmd->add_option("--threads", ia.threads, "OpenMP threads per rank");
        infer_cmd->add_option("--metrics", ia.metrics, "write the metrics JSON here");
        infer_cmd->add_option("--cache-dir", ia.cache_dir, "folder for the binary caches (default: beside the inputs)");
        infer_cmd->add_flag("--no-cache", ia.no_cache, "always parse the TSV files, write no cache");
        infer_cmd->add_flag("--no-compaction", ia.no_compaction, "keep dead image rows (for comparison)");
        infer_cmd->add_option("--batch-images", ia.batch_images, "images per batch and rank (default: all whose two activation buffers fit 4 GiB)");
        infer_cmd->add_flag("--stream-weights", ia.stream_weights,
                            "convert/load each layer's weights while the previous layer runs (double buffered)");
        infer_cmd->add_option("--stream-source", ia.stream_source, "host (memory) or disk (the binary cache)")
            ->capture_default_str();
        infer_cmd->add_flag("--no-rebalance", ia.no_rebalance, "never move live rows between ranks");
        infer_cmd->add_option("--rebalance-threshold", ia.rebalance_threshold,
                              "rebalance when the largest live count exceeds this x the mean")
            ->capture_default_str();
        infer_cmd->add_option("--repeat", ia.repeat, "run the inference this many times, report the best")
            ->capture_default_str();
        infer_cmd->add_flag("--reference", ia.reference, "also run the serial reference inference and compare (slow)");
        infer_cmd->add_flag("--verbose", ia.verbose, "one line per layer");
        infer_cmd->add_flag("--quiet", ia.quiet, "print only errors and check results");

        GenerateArgs ga;
        auto* gen_cmd = app.add_subcommand("generate", "write a RadiX-Net network, images and categories in the official layout");
        gen_cmd->add_option("--neurons", ga.neurons, "neurons per layer N (1024, 4096, 16384, 65536; any 16·2^p)")->required();
        gen_cmd->add_option("--layers", ga.layers, "layers L")->required();
        gen_cmd->add_option("--images", ga.images, "number of images")->required();
        gen_cmd->add_option("--out", ga.out, "output folder")->required();
        gen_cmd->add_option("--seed", ga.seed, "random seed")->capture_default_str();
        gen_cmd->add_option("--bias", ga.bias, "bias for the categories (default: the Challenge's for N)");
        gen_cmd->add_flag("--no-categories", ga.no_categories, "skip the reference inference for the categories file");
        gen_cmd->add_option("--threads", ga.threads, "OpenMP threads");

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
        // Numbers with a default when absent must be valid when given; outputs writable first.
        app::all_ranks(MPI_COMM_WORLD, [&] {
            auto refuse = [](const char* name, const std::string& what) { TESSEL_INVALID_INPUT(name, 0, what); };
            if (infer_cmd->parsed()) {
                if (infer_cmd->count("--bias") && !std::isfinite(ia.bias)) refuse("--bias", "must be a finite number");
                if (infer_cmd->count("--num-images") && ia.num_images < 1)
                    refuse("--num-images", "must be at least 1, not " + std::to_string(ia.num_images));
                if (infer_cmd->count("--batch-images") && ia.batch_images < 1)
                    refuse("--batch-images", "must be at least 1, not " + std::to_string(ia.batch_images));
                if (ia.neurons > 0 && ia.layers > 0)
                    app::require_memory("--neurons " + std::to_string(ia.neurons),
                                        "the row pointers of " + std::to_string(ia.layers) + " layers",
                                        8.0 * double(ia.neurons + 1) * double(ia.layers));
                if (!ia.output.empty() && rank == 0) io::check_writable(ia.output, "--output");
                if (!ia.metrics.empty() && rank == 0) io::check_writable(ia.metrics, "--metrics");
            }
            if (gen_cmd->parsed() && gen_cmd->count("--bias") && !std::isfinite(ga.bias))
                refuse("--bias", "must be a finite number");
        });
        if (infer_cmd->parsed()) code = run_infer(ia);
        if (gen_cmd->parsed()) code = run_generate(ga);
    }
    return code;
}

}  // namespace

int main(int argc, char** argv) { return tessel::app::run_mpi_app("tessel-spdnn", argc, argv, run); }
