// tessel-bench-xct: the MemXCT performance table. For each image size and angle count, each
// domain order and each number of slices K: build time, time per CGLS iteration (one A and
// one Aᵀ SpMM with K columns plus the vector updates), GFLOP/s and effective GB/s of the SpMMs,
// and the fraction of the STREAM bound (bytes of A and Aᵀ read once per iteration over the
// triad bandwidth). With --skimage, scikit-image's iradon_sart on the same sinogram.
#include <omp.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/xct/driver/memory_estimate.hpp"
#include "apps/xct/geometry/phantom.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/system_matrix.hpp"
#include "apps/xct/solvers/column_ops.hpp"
#include "apps/xct/solvers/solver.hpp"
#include "bench/common/cpu_load.hpp"
#include "bench/common/stream.hpp"
#include "bench/common/table.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"
#include "io/memxct_raw.hpp"

using namespace tessel;
using namespace tessel::xct;
using bench::format_number;

namespace {

struct Size {
    size_type n, angles;
};

std::vector<Size> parse_sizes(const std::string& text) {
    std::vector<Size> sizes;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto x = item.find('x');
        if (x == std::string::npos) throw std::runtime_error("size '" + item + "' is not NxANGLES");
        sizes.push_back({std::stoll(item.substr(0, x)), std::stoll(item.substr(x + 1))});
    }
    return sizes;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// The first Python that imports scikit-image (a pyenv python3 may shadow the system one that
// python3-skimage installs into), or "" when none does.
std::string find_python(const std::string& preferred) {
    std::vector<std::string> candidates;
    if (!preferred.empty()) candidates.push_back(preferred);
    candidates.insert(candidates.end(), {"python3", "/usr/bin/python3"});
    for (const auto& python : candidates)
        if (std::system((python + " -c 'import skimage' > /dev/null 2>&1").c_str()) == 0) return python;
    return "";
}

// Runs scikit-image's iradon_sart on a raw sinogram; returns seconds per iteration or < 0.
double skimage_seconds(const std::string& python, const std::string& script, const std::string& sino, const std::string& theta, size_type angles,
                       size_type channels, int iterations, std::string& note) {
    const std::string out = sino + ".skimage.json";
    const std::string command = python + " " + script + " --sinogram " + sino + " --theta " + theta + " --angles " +
                                std::to_string(angles) + " --channels " + std::to_string(channels) +
                                " --iterations " + std::to_string(iterations) + " --json " + out + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
        note = "cannot run python3";
        return -1;
    }
    char buffer[512];
    std::string text;
    while (std::fgets(buffer, sizeof(buffer), pipe)) text += buffer;
    const int status = pclose(pipe);
    if (status != 0) {
        note = text.empty() ? "python3 failed" : text.substr(0, text.find('\n'));
        return -1;
    }
    std::ifstream in(out);
    const auto j = nlohmann::json::parse(in);
    note = "scikit-image " + j.value("version", std::string("?"));
    return j.at("seconds_per_iteration").get<double>();
}

}  // namespace

namespace {

struct BenchOptions {
    std::string sizes_text = "512x750,1024x1500", ks_text = "1,16,64", orders_text = "hilbert,natural", json_path,
                kernel = "tiled-ell", transpose = "stored", work = "/tmp/tessel-bench-xct", script, python;
    int iterations = 5, skimage_iterations = 1, threads = 0;
    size_type block_rows = 256, buffer_entries = 4096, tile = 32;
    bool skimage = false, quiet_wait = false, markdown = false;
    double memory_fraction = 0.9;
};

void add_options(CLI::App& app, BenchOptions& o) {
    app.add_option("--sizes", o.sizes_text, "Problems NxANGLES, comma-separated")->capture_default_str();
    app.add_option("--k", o.ks_text, "Slices per SpMM (K), comma-separated")->capture_default_str();
    app.add_option("--orders", o.orders_text, "Domain orders: hilbert, natural")->capture_default_str();
    app.add_option("--kernel", o.kernel, "tiled-ell or csr")->capture_default_str();
    app.add_option("--transpose", o.transpose, "stored (A and Aᵀ) or scatter (A only, Aᵀ by the transposed kernel)")
        ->check(CLI::IsMember({"stored", "scatter"}))
        ->capture_default_str();
    app.add_option("--iterations", o.iterations, "Timed CGLS iterations per case (best and median reported)")
        ->capture_default_str();
    app.add_option("--block-rows", o.block_rows, "Tiled ELL rows per block")->capture_default_str();
    app.add_option("--buffer-entries", o.buffer_entries, "Tiled ELL staged inputs per stage")->capture_default_str();
    app.add_option("--tile", o.tile, "Hilbert tile")->capture_default_str();
    app.add_option("--threads", o.threads, "OpenMP threads (default: all)");
    app.add_option("--memory-fraction", o.memory_fraction, "Skip sizes whose estimate exceeds this share of the "
                                                           "available memory")->capture_default_str();
    app.add_flag("--skimage", o.skimage, "Also time scikit-image's iradon_sart on the K = 1 sinogram");
    app.add_option("--skimage-iterations", o.skimage_iterations, "SART iterations to time")->capture_default_str();
    app.add_option("--skimage-script", o.script, "Path of skimage_sart.py (default: next to this source)");
    app.add_option("--python", o.python, "Python interpreter for the comparison (default: the first of python3, "
                                         "/usr/bin/python3 that imports skimage)");
    app.add_option("--work", o.work, "Folder for sinograms handed to python")->capture_default_str();
    app.add_flag("--wait-quiet", o.quiet_wait, "Wait (up to 60 s) for other processes to calm down before each case");
    app.add_option("--json", o.json_path, "Write the results as JSON");
    app.add_flag("--markdown", o.markdown, "Also print the table as Markdown");
}

// "a,b,c" -> {parse("a"), parse("b"), parse("c")}.
template <typename T, typename Parse>
std::vector<T> split_list(const std::string& text, Parse&& parse) {
    std::vector<T> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) items.push_back(parse(item));
    return items;
}

// The triad measured again before every size, the best kept: on a shared machine a single
// measurement taken while others run would inflate the fractions.
struct BestTriad {
    bool quiet_wait = false;
    bench::StreamTriad best;

    explicit BestTriad(bool wait) : quiet_wait(wait) {
        if (quiet_wait) bench::wait_for_quiet(60.0);
        best = bench::measure_stream_triad(size_type(1) << 25, 10);
        std::printf("STREAM triad: %.1f GB/s with %d threads\n", best.gb_per_s, best.threads);
    }
    void remeasure() {
        if (quiet_wait) bench::wait_for_quiet(60.0);
        const auto again = bench::measure_stream_triad(size_type(1) << 25, 10);
        if (again.gb_per_s > best.gb_per_s) best = again;
        std::printf("STREAM triad: %.1f GB/s now, best %.1f GB/s\n", again.gb_per_s, best.gb_per_s);
    }
};

bench::TextTable results_table() {
    return bench::TextTable({"image", "angles", "order", "K", "build s", "s/iter", "s/iter/slice", "GFLOP/s", "GB/s",
                             "STREAM bound", "busy"});
}

// True (and a "skipped" row) when the size's estimate exceeds the memory fraction.
bool skip_when_too_big(const BenchOptions& o, const Size& size, const Geometry& g, size_type max_k,
                       nlohmann::json& doc, bench::TextTable& table) {
    MemoryPlan plan;
    plan.nnz = estimate_nnz(g);
    plan.pixels = g.num_pixels();
    plan.rays = g.num_rays();
    plan.kernel = parse_format(o.kernel);
    plan.k = max_k;
    plan.slices = 0;
    plan.round_slices = 0;
    const auto estimate = estimate_memory(plan);
    const double available = available_memory();
    if (!(available > 0 && estimate.total() > o.memory_fraction * available)) return false;
    std::printf("%lld x %lld, %lld angles: skipped, needs about %s (A and A^T %s, build peak %s), %s available\n",
                (long long)size.n, (long long)size.n, (long long)size.angles, format_bytes(estimate.total()).c_str(),
                format_bytes(estimate.matrices).c_str(), format_bytes(estimate.build_peak).c_str(),
                format_bytes(available).c_str());
    doc["results"].push_back({{"n", size.n},
                              {"angles", size.angles},
                              {"skipped", "memory"},
                              {"estimate_bytes", estimate.total()},
                              {"matrix_bytes_estimate", estimate.matrices},
                              {"available_bytes", available}});
    table.add_row({std::to_string(size.n), std::to_string(size.angles), "-", "-",
                   "does not fit: needs " + format_bytes(estimate.total()), "", "", "", "", "", ""});
    return true;
}

// The K phantom slices projected with the operator itself: the right-hand sides of CGLS.
DenseMatrix<float> phantom_sinograms(Projector<float>& op, const Geometry& g, const Ordering& ordering, size_type k) {
    const auto truth = shepp_logan_volume(g.n, k);
    DenseMatrix<float> x(op.pixels(), k), b;
    for (size_type pos = 0; pos < op.pixels(); ++pos)
        for (size_type j = 0; j < k; ++j) x(pos, j) = truth[j * g.num_pixels() + ordering.pixels[pos]];
    op.forward(x, b);
    return b;
}

// What one timed case measured.
struct CaseTimes {
    std::vector<double> steps;
    double best = 0, median = 0, spmm_share = 0, busy = 0, residual = 0;
};

// One warm-up CGLS step, then `iterations` timed ones with the operator's counters reset.
CaseTimes time_cgls(Projector<float>& op, const DenseMatrix<float>& b, int iterations, bool quiet_wait) {
    if (quiet_wait) bench::wait_for_quiet(60.0);
    Solver<float> solver(op, {Algorithm::cgls, iterations + 1, 0.0, false});
    SolverState<float> st;
    solver.start(b, st);
    solver.step(b, st);  // warm-up: first touch of the work buffers
    op.reset_stats();
    CaseTimes t;
    const auto before = bench::sample_cpu();
    while (solver.running(st)) {
        Timer timer;
        solver.step(b, st);
        t.steps.push_back(timer.seconds());
    }
    t.busy = bench::others_fraction(before, bench::sample_cpu());
    t.best = *std::min_element(t.steps.begin(), t.steps.end());
    t.median = median(t.steps);
    double sum = 0;
    for (double v : t.steps) sum += v;
    // Rates of the best iteration's SpMMs: the stats average all, scaled to the best.
    t.spmm_share = op.stats().seconds() / std::max(1e-12, sum);
    t.residual = st.history[0].back();
    return t;
}

// Times CGLS with K slices on a built operator; a table row, a JSON row; returns the best.
double time_case(Projector<float>& op, const Geometry& g, const Ordering& ordering, DomainOrder order, size_type k,
                 double build_seconds, const BenchOptions& o, const bench::StreamTriad& triad, nlohmann::json& doc,
                 bench::TextTable& table) {
    const auto b = phantom_sinograms(op, g, ordering, k);
    const CaseTimes t = time_cgls(op, b, o.iterations, o.quiet_wait);
    const auto info = op.describe();
    const double matrix_bytes = op.matrix_bytes();
    const auto& s = op.stats();
    const double spmm_best = t.best * t.spmm_share;
    const double calls = double(s.forward_calls + s.backward_calls) / 2.0;
    const double gflops = s.flops / calls / spmm_best / 1e9;
    const double gbs = s.bytes / calls / spmm_best / 1e9;
    const double bound = matrix_bytes / (triad.gb_per_s * 1e9);
    const double fraction = bound / t.best;
    table.add_row({std::to_string(g.n), std::to_string(g.num_theta()), std::string(to_string(order)),
                   std::to_string(k), format_number(build_seconds), format_number(t.best),
                   format_number(t.best / double(k)), format_number(gflops), format_number(gbs),
                   format_number(100.0 * fraction, 3) + "%", format_number(100.0 * t.busy, 2) + "%"});
    doc["results"].push_back({{"n", g.n},
                              {"angles", g.num_theta()},
                              {"order", std::string(to_string(order))},
                              {"k", k},
                              {"nnz", op.nnz()},
                              {"matrix_bytes", matrix_bytes},
                              {"build_seconds", build_seconds},
                              {"build_breakdown", info["build_seconds"]},
                              {"operator", info},
                              {"iteration_seconds_best", t.best},
                              {"iteration_seconds_median", t.median},
                              {"iteration_seconds_all", t.steps},
                              {"spmm_share_of_iteration", t.spmm_share},
                              {"gflops", gflops},
                              {"effective_gbytes_per_s", gbs},
                              {"stream_bound_seconds", bound},
                              {"stream_bound_fraction", fraction},
                              {"others_cpu_fraction", t.busy},
                              {"residual", t.residual}});
    std::printf("  K %3lld: %.4f s/iteration (median %.4f), %.1f GFLOP/s, %.1f GB/s, %.0f%% of the "
                "STREAM bound %.4f s (triad so far), others used %.0f%% of the CPUs\n",
                (long long)k, t.best, t.median, gflops, gbs, 100 * fraction, bound, 100 * t.busy);
    std::fflush(stdout);
    return t.best;
}

// Every order and K of one size; returns the best K = 1 time in Hilbert order (-1: none).
double time_orders(const Size& size, const Geometry& g, const std::vector<DomainOrder>& orders,
                   const std::vector<size_type>& ks, const BenchOptions& o, const bench::StreamTriad& triad,
                   nlohmann::json& doc, bench::TextTable& table) {
    double best_hilbert_k1 = -1;
    for (const auto order : orders) {
        if (o.quiet_wait) bench::wait_for_quiet(60.0);
        const auto ordering = make_ordering(g, order, o.tile);
        ProjectorOptions options;
        options.kernel = parse_format(o.kernel);
        options.tiles = {o.block_rows, o.buffer_entries};
        options.scatter_transpose = o.transpose == "scatter";
        Timer build_timer;
        auto op = make_local_projector<float>(g, ordering, options);
        const double build_seconds = build_timer.seconds();
        std::printf("%lld x %lld, %lld angles, %s: nnz %lld, A + A^T %s, built in %.2f s %s\n", (long long)size.n,
                    (long long)size.n, (long long)size.angles, std::string(to_string(order)).c_str(),
                    (long long)op->nnz(), format_bytes(op->matrix_bytes()).c_str(), build_seconds,
                    op->describe()["build_seconds"].dump().c_str());
        for (const size_type k : ks) {
            const double best = time_case(*op, g, ordering, order, k, build_seconds, o, triad, doc, table);
            if (order == DomainOrder::hilbert && k == 1) best_hilbert_k1 = best;
        }
        table.add_rule();
    }
    return best_hilbert_k1;
}

// The K = 1 phantom sinogram in natural layout, written for iradon_sart; returns the prefix.
std::string write_natural_sinogram(const Geometry& g, const Size& size, const std::string& work) {
    const auto natural = make_ordering(g, DomainOrder::natural);
    const auto a = build_rows<float>(g, natural, 0, g.num_rays());
    const auto truth = shepp_logan_2d(size.n);
    std::vector<float> sino(static_cast<std::size_t>(g.num_rays()), 0.0f);
#pragma omp parallel for schedule(dynamic, 256)
    for (size_type i = 0; i < a.rows(); ++i) {
        double sum = 0;
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e)
            sum += double(a.values()[e]) * truth[a.col_idx()[e]];
        sino[i] = static_cast<float>(sum);
    }
    const std::string prefix = work + "/sino-" + std::to_string(size.n) + "x" + std::to_string(size.angles);
    io::write_sinogram(prefix + ".sino", sino, 1, g.num_theta(), g.num_rho);
    std::vector<float> theta(g.theta.begin(), g.theta.end());
    io::write_theta(prefix + ".theta", theta);
    return prefix;
}

// scikit-image's iradon_sart on the same sinogram, against tessel's best per-slice times.
void compare_skimage(const Size& size, const Geometry& g, double best_hilbert_k1, const BenchOptions& o,
                     nlohmann::json& doc) {
    const std::string prefix = write_natural_sinogram(g, size, o.work);
    std::string note = "scikit-image not installed (apt-get install python3-skimage)";
    const std::string interpreter = find_python(o.python);
    const double sart = interpreter.empty() ? -1.0
                                            : skimage_seconds(interpreter, o.script, prefix + ".sino", prefix + ".theta",
                                                              g.num_theta(), g.num_rho, o.skimage_iterations, note);
    nlohmann::json row{{"n", size.n}, {"angles", size.angles}, {"peer", "skimage.iradon_sart"}, {"note", note}};
    if (sart > 0) {
        row["seconds_per_iteration"] = sart;
        std::printf("  scikit-image iradon_sart: %.3f s per iteration (%s)\n", sart, note.c_str());
        double best_per_slice = best_hilbert_k1;
        for (const auto& r : doc["results"])
            if (r.contains("k") && r["n"] == size.n && r["angles"] == size.angles && r["order"] == "hilbert")
                best_per_slice = std::min(best_per_slice, r["iteration_seconds_best"].get<double>() /
                                                               double(r["k"].get<size_type>()));
        row["tessel_seconds_per_slice_iteration_k1"] = best_hilbert_k1;
        row["tessel_seconds_per_slice_iteration_best"] = best_per_slice;
        row["speedup_k1"] = best_hilbert_k1 > 0 ? sart / best_hilbert_k1 : 0.0;
        row["speedup_best"] = best_per_slice > 0 ? sart / best_per_slice : 0.0;
        std::printf("  tessel per slice per iteration: %.4f s (K = 1), %.5f s (best K): %.0fx and %.0fx faster\n",
                    best_hilbert_k1, best_per_slice, row["speedup_k1"].get<double>(),
                    row["speedup_best"].get<double>());
    } else {
        std::printf("  scikit-image iradon_sart skipped: %s\n", note.c_str());
    }
    doc["peers"].push_back(row);
}

// The rows again with the best triad of the run (fractions of the STREAM bound updated).
bench::TextTable final_table(nlohmann::json& doc, const bench::StreamTriad& triad) {
    bench::TextTable table = results_table();
    for (auto& r : doc["results"]) {
        if (r.contains("skipped")) {
            table.add_row({std::to_string(r["n"].get<long long>()), std::to_string(r["angles"].get<long long>()), "-",
                           "-", "does not fit: needs " + format_bytes(r["estimate_bytes"].get<double>())});
            continue;
        }
        r["stream_bound_seconds"] = r["matrix_bytes"].get<double>() / (triad.gb_per_s * 1e9);
        r["stream_bound_fraction"] = r["stream_bound_seconds"].get<double>() / r["iteration_seconds_best"].get<double>();
        table.add_row({std::to_string(r["n"].get<long long>()), std::to_string(r["angles"].get<long long>()),
                       r["order"].get<std::string>(), std::to_string(r["k"].get<long long>()),
                       format_number(r["build_seconds"].get<double>()),
                       format_number(r["iteration_seconds_best"].get<double>()),
                       format_number(r["iteration_seconds_best"].get<double>() / r["k"].get<double>()),
                       format_number(r["gflops"].get<double>()), format_number(r["effective_gbytes_per_s"].get<double>()),
                       format_number(100.0 * r["stream_bound_fraction"].get<double>(), 3) + "%",
                       format_number(100.0 * r["others_cpu_fraction"].get<double>(), 2) + "%"});
    }
    return table;
}

// The same rows as a Markdown table (for docs/BENCHMARKS.md).
void print_markdown(const nlohmann::json& doc) {
    std::printf("\n| image | angles | order | K | build s | s/iteration | s/iteration/slice | GFLOP/s | GB/s | "
                "STREAM bound | others' CPU |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& r : doc["results"]) {
        if (r.contains("skipped")) {
            std::printf("| %lld | %lld | | | does not fit: needs about %s | | | | | | |\n", r["n"].get<long long>(),
                        r["angles"].get<long long>(), format_bytes(r["estimate_bytes"].get<double>()).c_str());
            continue;
        }
        std::printf("| %lld | %lld | %s | %lld | %s | %s | %s | %s | %s | %s%% | %s%% |\n", r["n"].get<long long>(),
                    r["angles"].get<long long>(), r["order"].get<std::string>().c_str(), r["k"].get<long long>(),
                    format_number(r["build_seconds"].get<double>()).c_str(),
                    format_number(r["iteration_seconds_best"].get<double>()).c_str(),
                    format_number(r["iteration_seconds_best"].get<double>() / r["k"].get<double>()).c_str(),
                    format_number(r["gflops"].get<double>()).c_str(),
                    format_number(r["effective_gbytes_per_s"].get<double>()).c_str(),
                    format_number(100.0 * r["stream_bound_fraction"].get<double>()).c_str(),
                    format_number(100.0 * r["others_cpu_fraction"].get<double>(), 2).c_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"tessel-bench-xct: build time, CGLS iteration time, GFLOP/s, GB/s and the STREAM bound of "
                 "tessel-xct's operator; scikit-image's iradon_sart side by side when installed"};
    BenchOptions o;
    add_options(app, o);
    CLI11_PARSE(app, argc, argv);
    if (o.threads > 0) omp_set_num_threads(o.threads);
    if (o.script.empty()) o.script = std::string(TESSEL_XCT_BENCH_SOURCE_DIR) + "/skimage_sart.py";
    const auto sizes = parse_sizes(o.sizes_text);
    const auto ks = split_list<size_type>(o.ks_text, [](const std::string& t) { return size_type(std::stoll(t)); });
    const auto orders = split_list<DomainOrder>(o.orders_text, [](const std::string& t) { return parse_domain_order(t); });
    BestTriad triad(o.quiet_wait);
    nlohmann::json doc{{"benchmark", "tessel-bench-xct"},
                       {"machine", machine_description()},
                       {"threads", omp_get_max_threads()},
                       {"stream_triad", triad.best.json()},
                       {"kernel", o.kernel},
                       {"transpose", o.transpose},
                       {"tiles", {{"block_rows", o.block_rows}, {"buffer_entries", o.buffer_entries}, {"hilbert_tile", o.tile}}},
                       {"results", nlohmann::json::array()}};
    bench::TextTable table = results_table();
    std::filesystem::create_directories(o.work);
    for (const auto& size : sizes) {
        if (&size != &sizes.front()) triad.remeasure();
        const Geometry g{size.n, size.n, uniform_angles(size.angles)};
        if (skip_when_too_big(o, size, g, *std::max_element(ks.begin(), ks.end()), doc, table)) continue;
        const double best_hilbert_k1 = time_orders(size, g, orders, ks, o, triad.best, doc, table);
        if (o.skimage) compare_skimage(size, g, best_hilbert_k1, o, doc);
    }
    triad.remeasure();
    table = final_table(doc, triad.best);
    doc["stream_triad"] = triad.best.json();
    std::printf("\nSTREAM triad (best of the run): %.1f GB/s\n", triad.best.gb_per_s);
    table.print(std::cout);
    if (o.markdown) print_markdown(doc);
    if (!o.json_path.empty()) {
        write_file_atomically(o.json_path, doc.dump(2) + "\n");
        std::printf("results: %s\n", o.json_path.c_str());
    }
    return 0;
}
