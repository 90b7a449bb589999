// tessel-spdnn against SuiteSparse:GraphBLAS on one Graph Challenge problem, same threads:
// GraphBLAS the way LAGraph's dnn does it (Y = Y·W with the plus-times semiring, bias added to
// the stored entries, select > 0, min with 32), tessel's fused kernel, tessel without
// compaction and core's tiled ELL SpMM. Prints a table and writes JSON.
#include <omp.h>

extern "C" {
#include <GraphBLAS.h>
}

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/spdnn/driver/inference.hpp"
#include "apps/spdnn/driver/report.hpp"
#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/network/layer_weights.hpp"
#include "apps/spdnn/network/network.hpp"
#include "bench/common/run_bench.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"

using namespace tessel;
using namespace tessel::spdnn;

namespace {

#define GRB(call)                                                                                  \
    do {                                                                                           \
        const GrB_Info info_ = (call);                                                             \
        if (info_ != GrB_SUCCESS && info_ != GrB_NO_VALUE)                                         \
            throw std::runtime_error(std::string(#call) + " failed: GrB_Info " + std::to_string(info_)); \
    } while (0)

GrB_Matrix to_graphblas(const Csr<Value, Index>& a) {
    std::vector<GrB_Index> row(a.nnz()), col(a.nnz());
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            row[e] = static_cast<GrB_Index>(i);
            col[e] = static_cast<GrB_Index>(a.col_idx()[e]);
        }
    GrB_Matrix m;
    GRB(GrB_Matrix_new(&m, GrB_FP32, a.rows(), a.cols()));
    GRB(GrB_Matrix_build_FP32(m, row.data(), col.data(), a.values().data(), a.nnz(), GrB_PLUS_FP32));
    GRB(GrB_Matrix_wait(m, GrB_MATERIALIZE));
    return m;
}

struct GraphblasRun {
    double seconds = 0;
    std::vector<std::int64_t> categories;
};

// LAGraph-style inference; the time excludes building Y0 and W_k.
GraphblasRun graphblas_inference(const std::vector<GrB_Matrix>& w, const Images& images, Value bias) {
    GrB_Matrix y = to_graphblas(images);
    GraphblasRun run;
    Timer t;
    for (const auto& wk : w) {
        GRB(GrB_mxm(y, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP32, y, wk, nullptr));
        GRB(GrB_Matrix_apply_BinaryOp2nd_FP32(y, nullptr, nullptr, GrB_PLUS_FP32, y, bias, nullptr));
        GRB(GrB_Matrix_select_FP32(y, nullptr, nullptr, GrB_VALUEGT_FP32, y, 0.0f, nullptr));
        GRB(GrB_Matrix_apply_BinaryOp2nd_FP32(y, nullptr, nullptr, GrB_MIN_FP32, y, activation_cap, nullptr));
    }
    // The answer: rows with any entry.
    GrB_Vector live;
    GRB(GrB_Vector_new(&live, GrB_FP32, images.rows()));
    GRB(GrB_Matrix_reduce_Monoid(live, nullptr, nullptr, GrB_PLUS_MONOID_FP32, y, nullptr));
    GrB_Index n = 0;
    GRB(GrB_Vector_nvals(&n, live));
    std::vector<GrB_Index> idx(n);
    std::vector<float> val(n);
    GRB(GrB_Vector_extractTuples_FP32(idx.data(), val.data(), &n, live));
    run.seconds = t.seconds();
    for (GrB_Index k = 0; k < n; ++k) run.categories.push_back(static_cast<std::int64_t>(idx[k]) + 1);
    std::sort(run.categories.begin(), run.categories.end());
    GrB_Vector_free(&live);
    GrB_Matrix_free(&y);
    return run;
}

struct BenchArgs {
    std::string network_dir, images_path, json_path, cache_dir;
    size_type neurons = 0, layers = 0, num_images = 0;
    int threads = 0, repeat = 3;
    bool skip_graphblas = false, skip_extra = false;
};

void add_options(CLI::App& app, BenchArgs& a) {
    app.add_option("--network", a.network_dir, "network folder (official layout)")->required();
    app.add_option("--neurons", a.neurons, "N")->required();
    app.add_option("--layers", a.layers, "L")->required();
    app.add_option("--images", a.images_path, "images file (default: sparse-images-{N}.tsv beside neuron{N}/)");
    app.add_option("--num-images", a.num_images, "image count (default: from the file)");
    app.add_option("--threads", a.threads, "threads for both (default: OpenMP's)");
    app.add_option("--repeat", a.repeat, "runs per method, the best is reported")->capture_default_str();
    app.add_option("--json", a.json_path, "write the results here");
    app.add_option("--cache-dir", a.cache_dir, "binary cache folder (default: beside the inputs)");
    app.add_flag("--skip-graphblas", a.skip_graphblas, "only tessel's kernels");
    app.add_flag("--only-fused", a.skip_extra, "tessel: the fused kernel with compaction only");
}

// One method's best run.
struct Row {
    std::string method;
    double seconds;
    std::size_t categories;
    nlohmann::json detail;
};

// GraphBLAS's best of `repeat` runs; its categories in `answer`.
Row run_graphblas(const Network& network, const Images& images, int threads, int repeat,
                  std::vector<std::int64_t>& answer) {
    GRB(GrB_init(GrB_NONBLOCKING));
    GRB(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads));
    std::vector<GrB_Matrix> w;
    for (const auto& layer : network.layers) w.push_back(to_graphblas(layer));
    GraphblasRun best;
    for (int r = 0; r < repeat; ++r) {
        auto run = graphblas_inference(w, images, network.bias);
        std::printf("  GraphBLAS run %d: %.4f s\n", r + 1, run.seconds);
        if (r == 0 || run.seconds < best.seconds) best = std::move(run);
    }
    for (auto& m : w) GrB_Matrix_free(&m);
    GrB_finalize();
    answer = best.categories;
    return {"SuiteSparse:GraphBLAS " + std::to_string(GxB_IMPLEMENTATION_MAJOR) + "." +
                std::to_string(GxB_IMPLEMENTATION_MINOR) + " (mxm plus-times, bias, select, cap)",
            best.seconds, best.categories.size(), {}};
}

// tessel's kernels (best of `repeat` each) appended to `rows`; false when an answer differs
// from `answer` (set from the first one when empty).
bool run_tessel(const Network& network, const Images& images, const BenchArgs& a, std::vector<Row>& rows,
                std::vector<std::int64_t>& answer) {
    auto weights = resident_weights(network, weight_layout(network.neurons));
    const auto shape = shape_of(network);
    struct Variant {
        std::string name;
        KernelChoice kernel;
        bool compaction;
    };
    std::vector<Variant> variants = {{"tessel fused tiled ELL + compaction", KernelChoice::fused, true}};
    if (!a.skip_extra) {
        variants.push_back({"tessel core tiled ELL SpMM + compaction pass", KernelChoice::core, true});
        variants.push_back({"tessel fused tiled ELL, no compaction", KernelChoice::fused, false});
    }
    bool all_equal = true;
    for (const auto& v : variants) {
        InferenceOptions opt;
        opt.backend = Backend::cpu;
        opt.kernel = v.kernel;
        opt.compaction = v.compaction;
        InferenceResult best;
        for (int r = 0; r < a.repeat; ++r) {
            auto res = infer(shape, *weights, images, opt);
            std::printf("  %s run %d: %.4f s\n", v.name.c_str(), r + 1, res.seconds);
            if (r == 0 || res.seconds < best.seconds) best = std::move(res);
        }
        if (answer.empty() && a.skip_graphblas) answer = best.categories;
        all_equal &= best.categories == answer;
        rows.push_back({v.name + " (R = " + std::to_string(best.register_factor) + ")", best.seconds,
                        best.categories.size(), result_json(best)});
    }
    return all_equal;
}

void print_table(const std::vector<Row>& rows, int threads, double work, double graphblas_seconds, bool all_equal) {
    std::printf("\n%-62s %8s %10s %12s %8s %s\n", "method", "threads", "seconds", "edges/s", "vs GrB", "categories");
    for (const auto& r : rows)
        std::printf("%-62s %8d %10.4f %12.4g %8s %zu\n", r.method.c_str(), threads, r.seconds, work / r.seconds,
                    graphblas_seconds > 0 ? (std::to_string(graphblas_seconds / r.seconds).substr(0, 5) + "x").c_str()
                                          : "-",
                    r.categories);
    std::printf("answers %s\n", all_equal ? "identical" : "DIFFER");
}

void write_json(const BenchArgs& a, const Network& network, const Images& images, const std::vector<Row>& rows,
                int threads, double work, bool all_equal) {
    Metrics m("tessel-bench-spdnn");
    auto& j = m.json();
    j["neurons"] = a.neurons;
    j["layers"] = a.layers;
    j["images"] = images.rows();
    j["edges"] = network.total_edges();
    j["threads"] = threads;
    j["answers_identical"] = all_equal;
    for (const auto& r : rows)
        j["methods"].push_back({{"method", r.method},
                                {"seconds", r.seconds},
                                {"edges_per_second", work / r.seconds},
                                {"categories", r.categories},
                                {"detail", r.detail}});
    m.write(a.json_path);
}

int run(const BenchArgs& a) {
    const int threads = omp_get_max_threads();
    const auto paths = problem_paths(a.network_dir, a.neurons, a.layers);
    CacheOptions cache;
    cache.dir = a.cache_dir;
    Timer t;
    const auto network = load_network(paths.layer_dir, a.neurons, a.layers, official_bias(a.neurons), cache);
    const auto images = load_images(a.images_path.empty() ? paths.images : a.images_path, a.neurons, a.num_images, cache);
    std::printf("problem: N = %lld, L = %lld, %lld images, %lld edges; read in %.2f s; %d threads\n",
                static_cast<long long>(a.neurons), static_cast<long long>(a.layers),
                static_cast<long long>(images.rows()), static_cast<long long>(network.total_edges()), t.seconds(),
                threads);
    const double work = double(images.rows()) * double(network.total_edges());
    std::vector<Row> rows;
    std::vector<std::int64_t> answer;
    double graphblas_seconds = 0;
    if (!a.skip_graphblas) {
        rows.push_back(run_graphblas(network, images, threads, a.repeat, answer));
        graphblas_seconds = rows.back().seconds;
    }
    const bool all_equal = run_tessel(network, images, a, rows, answer);
    print_table(rows, threads, work, graphblas_seconds, all_equal);
    if (!a.json_path.empty()) write_json(a, network, images, rows, threads, work, all_equal);
    return all_equal ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return tessel::bench::run_bench("tessel-bench-spdnn", [&] {
        CLI::App app{"tessel-bench-spdnn: tessel-spdnn vs SuiteSparse:GraphBLAS on a Graph Challenge problem"};
        BenchArgs args;
        add_options(app, args);
        CLI11_PARSE(app, argc, argv);
        if (args.threads > 0) omp_set_num_threads(args.threads);
        return run(args);
    });
}
