// tessel-spdnn infer: read the inputs (the network, or with --stream-source disk only its
// shape), prepare the weights, run, check, report. One function per step.
#include "apps/spdnn/driver/infer_command.hpp"

#include <mpi.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "apps/spdnn/driver/inference.hpp"
#include "apps/spdnn/driver/memory_estimate.hpp"
#include "apps/spdnn/driver/peak_memory.hpp"
#include "apps/spdnn/driver/report.hpp"
#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/io/cache_stream.hpp"
#include "apps/spdnn/io/tiled_cache.hpp"
#include "apps/spdnn/network/layer_weights.hpp"
#include "apps/spdnn/network/network.hpp"
#include "apps/spdnn/reference/reference_inference.hpp"
#include "apps/spdnn/reference/reference_streamed.hpp"
#include "core/app/byte_size.hpp"
#include "core/app/run_mpi_app.hpp"
#include "core/backend.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/device_warmup.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"
#include "io/graph_challenge.hpp"

namespace tessel::spdnn {

namespace {

struct Inputs {
    NetworkShape shape;
    Network network;         // empty when streaming from disk
    std::string disk_cache;  // the cache the layers stream from (--stream-source disk)
    WeightLayout layout;     // how the kernels take the layers
    StoredTiled stored;      // streaming from disk: whether the cache's tiled layers are read
    Images images;
    std::string images_path;
    std::vector<std::int64_t> truth;
    CacheReport net_report, img_report;
    MemoryEstimate estimate;
};

struct Runs {
    InferenceResult best;
    std::vector<double> seconds;
};

struct ReferenceCheck {
    bool ran = false, ok = true;
    size_type images = 0;
    std::vector<std::int64_t> answer;
};

Value bias_of(const InferArgs& a) {
    if (!std::isnan(a.bias)) {
        if (!std::isfinite(a.bias)) TESSEL_INVALID_INPUT("--bias", 0, "must be a finite number");
        return static_cast<Value>(a.bias);
    }
    return official_bias(a.neurons);
}

bool streams_from_disk(const InferArgs& a) { return a.stream_weights && a.stream_source == "disk"; }

// --reorder auto turns the reordering on for row groups too: they gain only where a thread's
// neurons share their inputs, which the reordering puts side by side.
WeightLayout layout_of(const InferArgs& a) {
    const int reorder = parse_reorder(a.reorder);
    return weight_layout(a.neurons, a.block_rows, reorder < 0 && a.row_groups > 1 ? 1 : reorder);
}

// The network's edges before loading it: from its binary cache when there is one, else the
// Challenge's 32 per row.
size_type expected_edges(const std::string& cache, const InferArgs& a, Value bias) {
    try {
        if (!cache.empty()) return read_network_cache_shape(cache, a.neurons, a.layers, bias).edges;
    } catch (const Error&) {
        // no usable cache: the Challenge's count
    }
    return 32 * a.neurons * a.layers;
}

// The estimate of what the run will hold; refused here, before the network is loaded, when
// it does not fit.
MemoryEstimate check_memory(const InferArgs& a, const Images& images, size_type edges, int node_ranks) {
    EstimateInput e;
    e.neurons = a.neurons;
    e.layers = a.layers;
    e.edges = edges;
    e.images = images.rows();
    e.image_nnz = images.nnz();
    e.batch_images = a.batch_images;
    e.ranks = node_ranks;
    e.streamed = a.stream_weights;
    e.from_disk = streams_from_disk(a);
    require_inference_memory(e);
    return estimate_inference_memory(e);
}

// The images, then (streaming from disk) the path and shape of the network's cache or the
// network itself, after the memory check; and the truth.
Inputs read_inputs(const InferArgs& a, MPI_Comm comm, Value bias, PhaseTimes& setup) {
    if (a.stream_source != "host" && a.stream_source != "disk")
        TESSEL_INVALID_INPUT("--stream-source", 0, "'" + a.stream_source + "' is not host or disk");
    const auto paths = problem_paths(a.network, a.neurons, a.layers);
    CacheOptions cache;
    cache.enabled = !a.no_cache;
    cache.dir = a.cache_dir;
    Inputs in;
    in.layout = layout_of(a);
    Timer t;
    in.images_path = a.images.empty() ? paths.images : a.images;
    in.images = app::root_first(
        comm, [&] { return load_images(in.images_path, a.neurons, a.num_images, cache, &in.img_report); });
    setup.add("read_images", t.seconds());
    t.restart();
    const int node_ranks = comm::ranks_on_node(comm);
    if (streams_from_disk(a)) {
        in.disk_cache = app::root_first(comm, [&] {
            return prepare_network_cache(paths.layer_dir, a.neurons, a.layers, bias, cache, &in.net_report);
        });
        in.shape = read_network_cache_shape(in.disk_cache, a.neurons, a.layers, bias);
        in.stored = probe_stored_tiled(in.disk_cache, a.neurons, a.layers, in.layout);
        in.estimate = check_memory(a, in.images, in.shape.edges, node_ranks);
    } else {
        std::string cached = generated_network_cache(paths.layer_dir, a.neurons, a.layers);
        if (cached.empty() && cache.enabled) cached = network_cache_path(paths.layer_dir, a.neurons, a.layers, cache);
        in.estimate = check_memory(a, in.images, expected_edges(cached, a, bias), node_ranks);
        in.network = app::root_first(
            comm, [&] { return load_network(paths.layer_dir, a.neurons, a.layers, bias, cache, &in.net_report); });
        in.shape = shape_of(in.network);
    }
    setup.add("read_network", t.seconds());
    if (!a.check.empty())
        in.truth = app::root_first(comm, [&] { return read_categories(a.check, in.images.rows()); });
    return in;
}

void print_inputs(const InferArgs& a, const Inputs& in, const PhaseTimes& setup, int ranks) {
    std::printf("tessel-spdnn: N = %lld, L = %lld, %lld images (%lld features), bias %g, %d rank(s) x %d thread(s)\n",
                static_cast<long long>(a.neurons), static_cast<long long>(a.layers),
                static_cast<long long>(in.images.rows()), static_cast<long long>(in.images.nnz()),
                double(in.shape.bias), ranks, omp_get_max_threads());
    auto cache_line = [](const char* what, const CacheReport& r, double sec) {
        std::printf("read %s: %.3f s%s%s%s\n", what, sec,
                    r.hit ? " (binary cache)" : (r.written ? " (parsed; binary cache written)" : " (parsed)"),
                    r.note.empty() ? "" : "; ", r.note.c_str());
    };
    cache_line(in.disk_cache.empty() ? "network" : "network shape", in.net_report, setup.get("read_network"));
    cache_line("images", in.img_report, setup.get("read_images"));
    if (!in.disk_cache.empty() && !in.stored.usable)
        std::printf("note: converting each layer while streaming: %s\n", in.stored.why_not.c_str());
    if (!(in.shape.bias <= 0) && !a.no_compaction)
        std::printf("note: bias %g > 0 revives all-zero rows; compaction is off\n", double(in.shape.bias));
}

// Weights as tiled ELL: all now (not timed as inference), or streamed layer by layer (from
// disk: the stored tiled layers read as they are, or the CSR layers read and converted).
std::unique_ptr<LayerWeights> prepare_weights(const InferArgs& a, Inputs& in) {
    const auto& ell = in.layout;
    if (!a.stream_weights) return resident_weights(in.network, ell);
    if (in.disk_cache.empty()) {
        const Network& network = in.network;
        return streamed_weights(a.layers, [&network](size_type k) { return network.layers[k]; }, ell,
                                "streamed from host memory");
    }
    const std::string file = in.disk_cache;
    if (in.stored.usable) {
        // One open file for the reading thread, which alone uses it.
        auto h5 = std::make_shared<io::File>(io::File::open(file));
        const size_type n = a.neurons;
        return streamed_prepared_weights(
            a.layers, [h5, n, ell](size_type k) { return read_tiled_layer(*h5, k, n, ell); }, ell,
            "streamed from disk, stored tiled ELL (" + file + ")");
    }
    return streamed_weights(a.layers, [file](size_type k) { return read_cached_layer(file, k); }, ell,
                            "streamed from disk, converted while streaming (" + file + ")");
}

InferenceOptions inference_options(const InferArgs& a, MPI_Comm comm, int ranks) {
    InferenceOptions opt;
    opt.backend = parse_backend(a.backend);
    opt.kernel = parse_kernel(a.kernel);
    opt.register_factor = a.register_factor;
    opt.row_groups = a.row_groups;
    opt.row_group_layers = a.row_group_layers;
    opt.compaction = !a.no_compaction;
    opt.batch_images = a.batch_images;
    opt.rebalance = !a.no_rebalance;
    opt.rebalance_threshold = a.rebalance_threshold;
    opt.comm = ranks > 1 ? comm : MPI_COMM_NULL;
    opt.progress = !a.quiet;
    opt.verbose = a.verbose;
    return opt;
}

Runs run_repeats(const Inputs& in, LayerWeights& weights, const InferenceOptions& opt, int repeat) {
    Runs runs;
    for (int rep = 0; rep < std::max(1, repeat); ++rep) {
        auto r = infer(in.shape, weights, in.images, opt);
        runs.seconds.push_back(r.seconds);
        if (rep == 0 || r.seconds < runs.best.seconds) runs.best = std::move(r);
    }
    return runs;
}

// The first `count` images (all when count <= 0 or beyond the set).
Images first_images(const Images& images, size_type count) {
    if (count <= 0 || count >= images.rows()) return images;
    const size_type nnz = images.row_ptr()[count];
    std::vector<size_type> rp(images.row_ptr().begin(), images.row_ptr().begin() + count + 1);
    std::vector<Index> col(images.col_idx().begin(), images.col_idx().begin() + nnz);
    std::vector<Value> val(images.values().begin(), images.values().begin() + nnz);
    return Images(count, images.cols(), std::move(rp), std::move(col), std::move(val), "first images");
}

// The serial reference on the first --reference-images images (all by default), the layers
// from memory or, streaming from disk, read again one at a time from the cache.
ReferenceCheck check_with_reference(const InferArgs& a, const Inputs& in, const InferenceResult& result,
                                    PhaseTimes& setup) {
    ReferenceCheck ref;
    ref.ran = true;
    const Images subset = first_images(in.images, a.reference_images);
    ref.images = subset.rows();
    Timer rt;
    if (in.disk_cache.empty()) {
        ReferenceOptions ro;
        ro.parallel_batches = true;
        ro.batch_images = 16;
        ref.answer = reference_categories(in.network, subset, ro);
    } else {
        const std::string file = in.disk_cache;
        ref.answer = reference_categories_streamed(in.shape, [file](size_type k) { return read_cached_layer(file, k); },
                                                   subset);
    }
    std::vector<std::int64_t> mine;
    for (auto id : result.categories)
        if (id <= ref.images) mine.push_back(id);
    ref.ok = mine == ref.answer;
    setup.add("reference", rt.seconds());
    return ref;
}

// The largest peak over the ranks.
size_type peak_over_ranks(MPI_Comm comm, int ranks) {
    std::int64_t peak = peak_rss_bytes();
    if (ranks > 1) TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &peak, 1, MPI_INT64_T, MPI_MAX, comm));
    return peak;
}

void print_results(const InferArgs& a, const Inputs& in, const Runs& runs, const CheckResult& check,
                   const ReferenceCheck& ref, const PhaseTimes& setup) {
    const auto& result = runs.best;
    if (!a.quiet) {
        std::printf("%s", summary_text(result, a.neurons, a.layers).c_str());
        if (runs.seconds.size() > 1) {
            std::printf("repeats:");
            for (double s : runs.seconds) std::printf(" %.4f", s);
            std::printf(" s (best reported)\n");
        }
        std::printf("categories: %zu%s%s\n", result.categories.size(), a.output.empty() ? "" : ", written to ",
                    a.output.c_str());
    }
    if (ref.ran)
        std::printf("reference: %s (%zu categories of the first %lld images from the serial reference inference, %.1f s)\n",
                    ref.ok ? "equal" : "DIFFERENT", ref.answer.size(), static_cast<long long>(ref.images),
                    setup.get("reference"));
    if (!a.check.empty()) {
        if (check.ok()) {
            std::printf("check: OK, %zu categories equal %s\n", in.truth.size(), a.check.c_str());
        } else {
            std::printf("check: FAILED against %s: %lld missing, %lld extra\n", a.check.c_str(),
                        static_cast<long long>(check.missing), static_cast<long long>(check.extra));
            for (const auto& line : check.first) std::printf("  %s\n", line.c_str());
        }
    }
}

void print_memory(size_type peak, const LayerWeights& weights, const MemoryEstimate& estimate) {
    std::printf("peak resident memory: %s (VmHWM, largest rank); tiled-ELL weights held at once: %s (%s)\n",
                app::format_bytes(double(peak)).c_str(), app::format_bytes(double(weights.bytes_held())).c_str(),
                weights.stable() ? "all layers" : "two layers");
    std::printf("memory estimate before the run: %s\n", estimate.text().c_str());
}

void write_metrics(const InferArgs& a, const Inputs& in, const Runs& runs, const CheckResult& check,
                   const ReferenceCheck& ref, const PhaseTimes& setup, size_type peak, double device_context_seconds) {
    Metrics m("tessel-spdnn");
    auto& j = m.json();
    j["command"] = "infer";
    j["neurons"] = a.neurons;
    j["layers"] = a.layers;
    j["bias"] = in.shape.bias;
    j["threads"] = omp_get_max_threads();
    j["network"] = a.network;
    j["images_file"] = in.images_path;
    j["inference"] = result_json(runs.best);
    j["repeats_seconds"] = runs.seconds;
    // Host-device copies, waits and launches of the reported run, per phase (setup, the layer
    // loop as steady with one step per layer and batch, finish).
    j["device_traffic"] = runs.best.device_traffic;
    // cuda: the context's creation, on a thread beside the reading of the inputs (not a phase).
    j["device_context_seconds"] = device_context_seconds;
    j["peak_rss_bytes"] = peak;
    j["estimated_bytes_per_rank"] = in.estimate.per_rank();
    j["cache"] = {{"network", {{"path", in.net_report.path}, {"hit", in.net_report.hit}, {"note", in.net_report.note}}},
                  {"images", {{"path", in.img_report.path}, {"hit", in.img_report.hit}, {"note", in.img_report.note}}}};
    if (!in.disk_cache.empty())
        j["stored_tiled"] = {{"used", in.stored.usable}, {"why_not", in.stored.why_not}};
    if (!a.check.empty())
        j["check"] = {{"file", a.check}, {"ok", check.ok()}, {"missing", check.missing}, {"extra", check.extra}};
    if (ref.ran) j["reference"] = {{"equal", ref.ok}, {"images", ref.images}};
    m.set_phases(setup);
    m.write(a.metrics);
}

}  // namespace

int run_infer(const InferArgs& a) {
    MPI_Comm comm = MPI_COMM_WORLD;
    const int rank = comm::rank_of(comm), ranks = comm::size_of(comm);
    if (a.threads > 0) omp_set_num_threads(a.threads);
    if (a.neurons < 1) TESSEL_INVALID_INPUT("--neurons", 0, "must be positive");
    if (a.layers < 1) TESSEL_INVALID_INPUT("--layers", 0, "must be positive");
    const Backend backend = parse_backend(a.backend);
    check_inference_backend(backend);
    // The device's context made while the inputs are read (cuda, or auto with a device).
    DeviceWarmup warmup(backend == Backend::cuda ||
                        (backend == Backend::automatic && resolve_backend(backend) == Backend::cuda));
    const double max_rss = a.max_rss.empty() ? 0.0 : app::parse_bytes(a.max_rss, "--max-rss");
    PhaseTimes setup;
    Inputs in = read_inputs(a, comm, bias_of(a), setup);
    if (rank == 0 && !a.quiet) print_inputs(a, in, setup, ranks);
    Timer t;
    auto weights = prepare_weights(a, in);
    setup.add("prepare_weights", t.seconds());

    const Runs runs = run_repeats(in, *weights, inference_options(a, comm, ranks), a.repeat);
    ReferenceCheck ref;
    if (a.reference && rank == 0) ref = check_with_reference(a, in, runs.best, setup);
    CheckResult check;
    if (!a.check.empty()) check = compare_categories(runs.best.categories, in.truth);
    const size_type peak = peak_over_ranks(comm, ranks);

    if (rank == 0) {
        if (!a.output.empty()) io::write_categories(a.output, runs.best.categories);
        print_results(a, in, runs, check, ref, setup);
        if (!a.quiet || max_rss > 0) print_memory(peak, *weights, in.estimate);
        if (!a.metrics.empty()) write_metrics(a, in, runs, check, ref, setup, peak, warmup.seconds());
    }
    std::fflush(stdout);
    const bool rss_ok = max_rss <= 0 || double(peak) <= max_rss;
    if (rank == 0) {
        if (!check.ok()) std::fprintf(stderr, "tessel-spdnn: categories differ from %s\n", a.check.c_str());
        else if (!ref.ok) std::fprintf(stderr, "tessel-spdnn: categories differ from the reference inference\n");
        else if (!rss_ok)
            std::fprintf(stderr, "tessel-spdnn: peak resident memory %s exceeds --max-rss %s\n",
                         app::format_bytes(double(peak)).c_str(), app::format_bytes(max_rss).c_str());
    }
    return check.ok() && ref.ok && rss_ok ? 0 : 1;
}

}  // namespace tessel::spdnn
