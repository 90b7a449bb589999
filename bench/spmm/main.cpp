// tessel-bench-spmm: times every SpMM kernel (tessel's and the peer libraries') on built-in
// or Matrix Market matrices, checks each result, and compares with the STREAM bound.
#include <omp.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/common/cpu_load.hpp"
#include "bench/common/run_bench.hpp"
#include "bench/common/stream.hpp"
#include "bench/common/table.hpp"
#include "bench/spmm/check.hpp"
#include "bench/spmm/kernels.hpp"
#include "bench/spmm/matrices.hpp"
#include "bench/spmm/peers.hpp"
#include "core/app/cli_checks.hpp"
#include "core/app/machine.hpp"
#include "core/app/memory_check.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/metrics.hpp"
#include "core/statistics.hpp"
#include "core/timer.hpp"

#ifndef TESSEL_BENCH_BUILD_TYPE
#define TESSEL_BENCH_BUILD_TYPE "unknown"
#endif

namespace tessel::bench {
namespace {

/// The reference runs (as oracle and as a timed row) only up to this many multiply-adds.
constexpr double reference_limit = double(size_type(1) << 25);

struct Options {
    std::vector<std::string> matrix_files;
    std::string generator;
    size_type size = size_type(1) << 20;
    size_type per_row = 8;
    std::vector<int> ks{1, 8, 16, 32, 64};
    std::vector<std::string> precisions{"float", "double"};
    int threads = 0;
    int repeat = 5;
    std::string json;
    std::vector<std::string> kernels;
    size_type block_rows = TiledEllConfig{}.block_rows;
    size_type buffer_entries = TiledEllConfig{}.buffer_entries;
    int register_factor = 0;
    size_type stream_elements = size_type(1) << 24;
    double quiet_wait = 0;
    std::string graphblas_method = "accum";
    bool quick = false;
    bool verbose = false;
};

/// Other processes above this share of the CPUs during a measurement mark it as disturbed.
constexpr double disturbed_threshold = 0.05;

/// One timed kernel on one (matrix, precision, K).
struct Row {
    std::string matrix, precision, kernel, family, note, details, trusted;
    size_type k = 0;
    bool on_device = false;
    std::vector<double> times;
    double seconds = NAN;         // median of times
    double setup_seconds = 0;     // building the kernel's form of A (once per matrix)
    double a_bytes = 0, csr_a_bytes = 0, b_bytes = 0, c_bytes = 0;
    double gflops = NAN, gbps = NAN, bound_seconds = NAN, stream_fraction = NAN;
    double others = 0;            // share of the CPUs other processes used while timing
    int attempts = 0;
    CheckResult check;
    std::string error;

    bool failed() const { return !error.empty() || !check.ok; }
    nlohmann::json json() const {
        nlohmann::json j = {{"matrix", matrix},
                            {"precision", precision},
                            {"k", k},
                            {"kernel", kernel},
                            {"family", family},
                            {"on_device", on_device},
                            {"note", note},
                            {"details", details},
                            {"times_s", times},
                            {"median_s", std::isfinite(seconds) ? nlohmann::json(seconds) : nullptr},
                            {"best_s", times.empty() ? nlohmann::json(nullptr)
                                                     : nlohmann::json(*std::min_element(times.begin(), times.end()))},
                            {"setup_s", setup_seconds},
                            {"other_processes_cpu_fraction", others},
                            {"attempts", attempts},
                            {"a_bytes", a_bytes},
                            {"csr_a_bytes", csr_a_bytes},
                            {"b_bytes", b_bytes},
                            {"c_bytes", c_bytes},
                            {"gflop_per_s", std::isfinite(gflops) ? nlohmann::json(gflops) : nullptr},
                            {"effective_gb_per_s", std::isfinite(gbps) ? nlohmann::json(gbps) : nullptr},
                            {"stream_bound_s", bound_seconds},
                            {"stream_fraction",
                             std::isfinite(stream_fraction) ? nlohmann::json(stream_fraction) : nullptr},
                            {"check",
                             {{"ok", check.ok},
                              {"trusted", trusted},
                              {"max_scaled_error", check.max_error},
                              {"worst_row", check.worst_row},
                              {"worst_col", check.worst_col}}}};
        if (!error.empty()) j["error"] = error;
        return j;
    }
};

/// Best tessel against best peer for one (matrix, precision, K) on one side (cpu or device).
struct Comparison {
    std::string matrix, precision, side;
    size_type k = 0;
    const Row* tessel = nullptr;
    const Row* peer = nullptr;
    double ratio() const { return tessel && peer ? peer->seconds / tessel->seconds : NAN; }
    nlohmann::json json() const {
        auto fin = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
        return {{"matrix", matrix},
                {"precision", precision},
                {"k", k},
                {"side", side},
                {"best_tessel", tessel ? nlohmann::json(tessel->kernel) : nullptr},
                {"best_tessel_s", tessel ? fin(tessel->seconds) : nullptr},
                {"best_tessel_stream_fraction", tessel ? fin(tessel->stream_fraction) : nullptr},
                {"best_peer", peer ? nlohmann::json(peer->kernel) : nullptr},
                {"best_peer_s", peer ? fin(peer->seconds) : nullptr},
                {"best_peer_stream_fraction", peer ? fin(peer->stream_fraction) : nullptr},
                {"tessel_over_peer_speedup", fin(ratio())}};
    }
};


std::string pct(double fraction) {
    return std::isfinite(fraction) ? format_number(100.0 * fraction, 3) + "%" : "-";
}

std::string mb(double bytes) { return format_number(bytes / 1e6, 3) + " MB"; }

/// Last-level cache (sysfs) and memory in bytes, 0 when unknown (core/app/machine.hpp).
double l3_bytes() { return double(tessel::llc_bytes()); }
double memory_bytes() { return tessel::physical_memory_bytes(); }

// Warm-up, then options.repeat timed multiplies. On a shared machine: wait for quiet, and
// measure again (up to 3 times) when other processes took a noticeable share of the CPUs.
template <typename V>
void time_multiplies(Kernel<V>& kernel, Row& row, const Options& options) {
    kernel.multiply();  // warm-up: caches, page tables, library-internal set-up
    const int max_attempts = options.quiet_wait > 0 ? 3 : 1;
    for (int attempt = 1; attempt <= max_attempts; ++attempt) {
        if (options.quiet_wait > 0) wait_for_quiet(options.quiet_wait);
        std::vector<double> times;
        const CpuSample before = sample_cpu();
        for (int r = 0; r < options.repeat; ++r) {
            Timer t;
            kernel.multiply();
            times.push_back(t.seconds());
        }
        const double others = others_fraction(before, sample_cpu());
        if (attempt == 1 || others < row.others) {
            row.times = times;
            row.others = others;
        }
        row.attempts = attempt;
        if (row.others <= disturbed_threshold) break;
    }
}

// The check column: ok / FAIL with the scaled error, or the error; notes and disturbance.
std::string check_text(const Row& row, double rtol) {
    std::string check;
    if (!row.error.empty()) {
        check = "ERROR " + row.error;
    } else {
        char buf[160];
        if (row.check.ok)
            std::snprintf(buf, sizeof buf, "ok (%.1e)", row.check.max_error);
        else
            std::snprintf(buf, sizeof buf, "FAIL (scaled error %.2e at row %lld col %lld > %.0e)",
                          row.check.max_error, (long long)row.check.worst_row, (long long)row.check.worst_col, rtol);
        check = buf;
    }
    if (!row.note.empty()) check += "  [" + row.note + "]";
    if (row.others > disturbed_threshold)
        check += "  [disturbed: other processes used " + pct(row.others) + " of the CPUs]";
    return check;
}

class Benchmark {
public:
    Benchmark(const Options& options, const StreamTriad& stream)
        : options_(options), stream_(stream) {
        kernel_options_.tiled_ell.block_rows = options.block_rows;
        kernel_options_.tiled_ell.buffer_entries = options.buffer_entries;
        kernel_options_.register_factor = options.register_factor;
        kernel_options_.threads = options.threads;
    }

    template <typename V>
    void run_matrix(const MatrixSpec& spec, const std::string& precision);

    const std::vector<std::unique_ptr<Row>>& rows() const { return rows_; }
    const std::vector<Comparison>& comparisons() const { return comparisons_; }
    const nlohmann::json& matrices_json() const { return matrices_; }
    bool failed() const { return failed_; }

private:
    template <typename V>
    void run_k(const Csr<V, Index>& a, const std::string& label, const std::string& precision,
               size_type k, std::vector<std::pair<std::unique_ptr<Kernel<V>>, double>>& kernels,
               const std::vector<double>& row_scale);
    void compare_group(const std::string& label, const std::string& precision, size_type k,
                       const std::vector<const Row*>& group);

    Options options_;
    StreamTriad stream_;
    KernelOptions kernel_options_;
    std::vector<std::unique_ptr<Row>> rows_;
    std::vector<Comparison> comparisons_;
    nlohmann::json matrices_ = nlohmann::json::array();
    bool failed_ = false;
};

template <typename V>
void Benchmark::run_matrix(const MatrixSpec& spec, const std::string& precision) {
    Timer timer;
    const Csr<V, Index> a = make_matrix<V>(spec);
    const double generate_seconds = timer.seconds();
    const std::string label = spec.label();
    std::printf("\n== %s [%s]: %lld x %lld, nnz %lld (%.2f/row, longest %lld), CSR %s; %s in %.2f s\n",
                label.c_str(), precision.c_str(), (long long)a.rows(), (long long)a.cols(),
                (long long)a.nnz(), a.average_row_length(), (long long)a.max_row_length(),
                mb(csr_bytes(a)).c_str(), spec.kind == "file" ? "read" : "generated",
                generate_seconds);

    nlohmann::json mj = {{"name", label},       {"kind", spec.kind},   {"precision", precision},
                         {"rows", a.rows()},    {"cols", a.cols()},    {"nnz", a.nnz()},
                         {"max_row", a.max_row_length()},              {"csr_bytes", csr_bytes(a)},
                         {"generate_s", generate_seconds}};

    // Kernels in the requested order; the form of A each needs is built once here.
    std::vector<std::pair<std::unique_ptr<Kernel<V>>, double>> kernels;
    std::string setup_line;
    for (const auto& name : options_.kernels) {
        auto kernel = make_kernel<V>(name, kernel_options_);
        if (!kernel) continue;
        Timer setup;
        try {
            kernel->prepare(a);
        } catch (const std::exception& e) {
            std::printf("   ERROR %s: preparing A failed: %s\n", name.c_str(), e.what());
            failed_ = true;
            continue;
        }
        const double seconds = setup.seconds();
        if (seconds >= 1e-4)  // kernels that read the CSR as it is have nothing to build
            setup_line += (setup_line.empty() ? "" : ", ") + name + " " + format_number(seconds, 2) + " s";
        mj["setup_s"][name] = seconds;
        mj["a_bytes"][name] = kernel->a_bytes();
        kernels.emplace_back(std::move(kernel), seconds);
    }
    if (!setup_line.empty())
        std::printf("   format build / import (not in the multiply times): %s\n", setup_line.c_str());
    for (auto& [kernel, seconds] : kernels)
        if (kernel->name() == "tiled-ell" || kernel->name() == "cuda-tiled-ell")
            std::printf("   %s stores %s (%.2fx CSR)\n", kernel->name().c_str(),
                        mb(kernel->a_bytes()).c_str(), kernel->a_bytes() / csr_bytes(a));
    matrices_.push_back(mj);

    const std::vector<double> row_scale = row_abs_sums(a);
    std::printf("   %-14s %3s %-6s %10s %8s %9s %8s  %s\n", "kernel", "K", "prec", "ms/mult",
                "GFLOP/s", "eff GB/s", "STREAM%", "check");
    for (int k : options_.ks) run_k<V>(a, label, precision, k, kernels, row_scale);
}

template <typename V>
void Benchmark::run_k(const Csr<V, Index>& a, const std::string& label,
                      const std::string& precision, size_type k,
                      std::vector<std::pair<std::unique_ptr<Kernel<V>>, double>>& kernels,
                      const std::vector<double>& row_scale) {
    const double mads = double(a.nnz()) * double(k);
    const bool small = mads <= reference_limit;
    // B, C, the trusted result and a kernel's own copy: checked before any is allocated.
    app::require_memory(label, "B and C with K = " + std::to_string(k),
                        (double(a.cols()) + 3.0 * double(a.rows())) * double(k) * sizeof(V));
    const DenseMatrix<V> b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 42);
    double b_max = 0;
    for (size_type e = 0; e < b.size(); ++e) b_max = std::max(b_max, std::fabs(double(b.data()[e])));
    std::vector<double> scale(row_scale);
    for (auto& s : scale) s *= b_max;

    const Trusted<V> trusted = compute_trusted<V>(a, b.view(), scale, small);
    const double rtol = check_tolerance<V>();
    if (trusted.source == "row-split" && !(trusted.self_check.ok)) {
        std::printf("   FAIL row-split differs from the reference on sampled rows (scaled error "
                    "%.2e at row %lld col %lld): later checks use it as the trusted result\n",
                    trusted.self_check.max_error, (long long)trusted.self_check.worst_row,
                    (long long)trusted.self_check.worst_col);
        failed_ = true;
    }
    const std::string trusted_label =
        trusted.source == "reference"
            ? "reference"
            : "row-split (vs reference on " + std::to_string(trusted.self_check.rows_checked) +
                  " sampled rows: " + (trusted.self_check.ok ? "ok" : "FAIL") + ")";

    DenseMatrix<V> c(a.rows(), k);
    const double b_bytes = double(a.cols()) * double(k) * sizeof(V);
    const double c_bytes = double(a.rows()) * double(k) * sizeof(V);
    const double bound = (csr_bytes(a) + b_bytes + c_bytes) / (stream_.gb_per_s * 1e9);

    std::vector<const Row*> group;
    for (auto& [kernel, setup_seconds] : kernels) {
        if (kernel->name() == "reference" && !small) continue;  // the serial oracle: small only
        auto row = std::make_unique<Row>();
        row->matrix = label;
        row->precision = precision;
        row->k = k;
        row->kernel = kernel->name();
        row->family = to_string(kernel->family());
        row->on_device = kernel->on_device();
        row->note = kernel->note();
        row->setup_seconds = setup_seconds;
        row->a_bytes = kernel->a_bytes();
        row->csr_a_bytes = csr_bytes(a);
        row->b_bytes = b_bytes;
        row->c_bytes = c_bytes;
        row->bound_seconds = bound;
        row->trusted = trusted_label;
        c.fill(std::numeric_limits<V>::quiet_NaN());  // a kernel that skips entries cannot pass
        try {
            kernel->bind(b.view(), c.view());
            row->details = kernel->details();
            time_multiplies(*kernel, *row, options_);
            kernel->collect();
            kernel->unbind();
        } catch (const std::exception& e) {
            row->error = e.what();
            kernel->unbind();
        }
        if (row->error.empty()) {
            row->seconds = median(row->times);
            row->gflops = 2.0 * mads / row->seconds / 1e9;
            row->gbps = (row->a_bytes + b_bytes + c_bytes) / row->seconds / 1e9;
            row->stream_fraction = bound / row->seconds;
            row->check = compare<V>(DenseView<const V>(c.view()), trusted.c.view(), scale, rtol);
        }
        if (row->failed()) failed_ = true;

        const std::string check = check_text(*row, rtol);
        std::printf("   %-14s %3lld %-6s %10s %8s %9s %8s  %s\n", row->kernel.c_str(), (long long)k,
                    precision.c_str(), format_number(row->seconds * 1e3, 4).c_str(),
                    format_number(row->gflops, 3).c_str(), format_number(row->gbps, 3).c_str(),
                    pct(row->stream_fraction).c_str(), check.c_str());
        if (options_.verbose && !row->details.empty())
            std::printf("   %14s %s\n", "", row->details.c_str());
        std::fflush(stdout);
        group.push_back(row.get());
        rows_.push_back(std::move(row));
    }
    compare_group(label, precision, k, group);
    std::printf("   %s\n", std::string(78, '-').c_str());
}

void Benchmark::compare_group(const std::string& label, const std::string& precision,
                              size_type k, const std::vector<const Row*>& group) {
    for (bool device : {false, true}) {
        Comparison cmp{label, precision, device ? "cuda" : "cpu", k};
        for (const Row* r : group) {
            if (r->on_device != device || r->failed()) continue;
            const Row** best = r->family == "tessel" ? &cmp.tessel : r->family == "peer" ? &cmp.peer : nullptr;
            if (best && (!*best || r->seconds < (*best)->seconds)) *best = r;
        }
        if (!cmp.tessel && !cmp.peer) continue;
        if (cmp.tessel && cmp.peer)
            std::printf("   -> K=%lld %s: best tessel %s %s ms (%s of STREAM bound), best peer %s %s ms: "
                        "tessel %.2fx\n",
                        (long long)k, cmp.side.c_str(), cmp.tessel->kernel.c_str(),
                        format_number(cmp.tessel->seconds * 1e3, 4).c_str(),
                        pct(cmp.tessel->stream_fraction).c_str(), cmp.peer->kernel.c_str(),
                        format_number(cmp.peer->seconds * 1e3, 4).c_str(), cmp.ratio());
        else if (cmp.tessel)
            std::printf("   -> K=%lld %s: best tessel %s %s ms (%s of STREAM bound), no peer\n",
                        (long long)k, cmp.side.c_str(), cmp.tessel->kernel.c_str(),
                        format_number(cmp.tessel->seconds * 1e3, 4).c_str(),
                        pct(cmp.tessel->stream_fraction).c_str());
        comparisons_.push_back(cmp);
    }
}

void print_summary(const std::vector<Comparison>& comparisons) {
    if (comparisons.empty()) return;
    std::printf("\n== summary: best tessel vs best peer (speedup = peer time / tessel time; "
                "STREAM%% = STREAM-bound time / measured time)\n");
    TextTable table({"matrix", "prec", "K", "side", "best tessel", "ms", "STREAM%", "best peer", "ms",
                     "STREAM%", "speedup"});
    std::string last;
    for (const auto& c : comparisons) {
        const std::string group = c.matrix + c.precision;
        if (!last.empty() && group != last) table.add_rule();
        last = group;
        table.add_row({c.matrix, c.precision, std::to_string(c.k), c.side,
                       c.tessel ? c.tessel->kernel : "-",
                       c.tessel ? format_number(c.tessel->seconds * 1e3, 4) : "-",
                       c.tessel ? pct(c.tessel->stream_fraction) : "-", c.peer ? c.peer->kernel : "-",
                       c.peer ? format_number(c.peer->seconds * 1e3, 4) : "-",
                       c.peer ? pct(c.peer->stream_fraction) : "-",
                       std::isfinite(c.ratio()) ? format_number(c.ratio(), 3) + "x" : "-"});
    }
    table.print(std::cout);
}

// The command line; returns the names of this build's kernels.
std::vector<std::string> add_options(CLI::App& app, Options& o) {
    app.add_option("--matrix", o.matrix_files, "Matrix Market file(s) (coordinate, real/integer/pattern)")
        ->check(CLI::ExistingFile);
    app.add_option("--generator", o.generator, "Built-in generator instead of the default set")
        ->check(CLI::IsMember({"stencil", "random", "powerlaw", "banded"}));
    app.add_option("--size", o.size,
                   "Rows for --generator (stencil: rounded to a square grid)")->capture_default_str();
    app.add_option("--per-row", o.per_row,
                   "Entries per row for --generator random, mean for powerlaw, 2*half width for banded")
        ->capture_default_str();
    app.add_option("--k", o.ks, "Right-hand-side counts K (comma separated)")->capture_default_str()
        ->delimiter(',')
        ->check(tessel::app::at_least(1));
    app.add_option("--precision", o.precisions, "Value types (comma separated)")->capture_default_str()
        ->delimiter(',')
        ->check(CLI::IsMember({"float", "double"}));
    app.add_option("--threads", o.threads, "Threads for tessel and every peer (default: OpenMP's)")
        ->check(tessel::app::at_least(1));
    app.add_option("--repeat", o.repeat, "Timed runs after one warm-up; the median is reported")->capture_default_str()
        ->check(tessel::app::at_least(1));
    app.add_option("--json", o.json, "Write every row, the comparisons and the machine here");
    const auto names = available_kernel_names();
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ",") + n;
    app.add_option("--kernels", o.kernels,
                   "Kernels to run (comma separated; default all in this build: " + all +
                       "; reference only runs when nnz*K <= 2^25)")
        ->delimiter(',');
    app.add_option("--block-rows", o.block_rows, "Tiled ELL rows per block (multiple of 32)")->capture_default_str();
    app.add_option("--buffer-entries", o.buffer_entries,
                   "Tiled ELL staged input rows per stage (1..65536)")->capture_default_str();
    app.add_option("--register-factor", o.register_factor,
                   "Tiled ELL columns per register tile: 4, 8, 16, 32 or 0 = chosen from K")->capture_default_str();
    app.add_option("--stream-elements", o.stream_elements,
                   "Doubles per STREAM triad array (3 arrays; default 2^24 = 128 MB each)")->capture_default_str();
    app.add_flag("--quick", o.quick,
                               "Short run: 64K-row built-in matrices, K in {8, 32}, 3 repeats");
    app.add_option("--quiet-wait", o.quiet_wait,
                   "On a shared machine: before each measurement wait up to this many seconds "
                   "for other processes to go quiet, and re-measure (3 tries) when disturbed")
        ->capture_default_str();
    app.add_option("--graphblas-method", o.graphblas_method,
                   "GraphBLAS peer: accum (C zeroed, C += A*B in place), auto, saxpy or dot")
        ->check(CLI::IsMember({"accum", "auto", "saxpy", "dot"}))
        ->capture_default_str();
    app.add_flag("--verbose", o.verbose, "Print each kernel's settings (tile sizes, library method)");
    return names;
}

// Options that depend on each other: --quick's defaults, --matrix or --generator, known kernels.
void settle_options(const CLI::App& app, Options& o, const std::vector<std::string>& names) {
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ",") + n;
    if (o.quick) {
        if (app.count("--k") == 0) o.ks = {8, 32};
        if (app.count("--repeat") == 0) o.repeat = 3;
    }
    if (!o.matrix_files.empty() && !o.generator.empty())
        TESSEL_INVALID_INPUT("command line", 0, "give --matrix or --generator, not both");
    if (o.kernels.empty()) o.kernels = names;
    for (const auto& k : o.kernels)
        if (std::find(names.begin(), names.end(), k) == names.end())
            TESSEL_INVALID_INPUT("--kernels", 0,
                                 "'" + k + "' is not a kernel of this build (one of " + all + ")");
    if (o.threads > 0) omp_set_num_threads(o.threads);
    o.threads = omp_get_max_threads();
}

std::vector<MatrixSpec> matrix_specs(const Options& o) {
    std::vector<MatrixSpec> specs;
    for (const auto& f : o.matrix_files) {
        MatrixSpec s;
        s.kind = "file";
        s.path = f;
        specs.push_back(s);
    }
    if (!o.generator.empty()) specs.push_back(generator_spec(o.generator, o.size, o.per_row));
    if (specs.empty()) specs = builtin_matrices(o.quick);
    return specs;
}

// The machine, the peers found and the device, as the first lines of the report.
void print_machine(const Options& o, Metrics& metrics) {
    const double l3 = l3_bytes();
    metrics.json()["machine"]["memory_bytes"] = memory_bytes();
    metrics.json()["machine"]["l3_bytes"] = l3 > 0 ? l3 : 0;
    const auto& machine = metrics.json()["machine"];
    std::printf("tessel-bench-spmm (%s build): %s, %d hardware threads, L3 %s, memory %s; "
                "%d threads used\n",
                TESSEL_BENCH_BUILD_TYPE, machine.value("cpu", std::string("?")).c_str(),
                machine.value("hardware_threads", 0), l3 > 0 ? mb(l3).c_str() : "?",
                mb(memory_bytes()).c_str(), o.threads);
    std::printf("peers found:");
    for (const auto& p : peers::found()) std::printf(" %s;", p.library.c_str());
    if (peers::found().empty()) std::printf(" none");
    std::printf("  not found:");
    for (const auto& m : peers::missing()) std::printf(" %s;", m.c_str());
    if (peers::missing().empty()) std::printf(" none");
    std::printf("\ncuda device: %s\n", cuda::device_description().c_str());
}

// The bound needs an undisturbed triad: with --quiet-wait, up to 3 tries, the best kept.
// Returns the triad and the share of the CPUs others used while it ran.
std::pair<StreamTriad, double> measure_bound_triad(const Options& o) {
    StreamTriad stream;
    double stream_others = 1;
    for (int attempt = 1; attempt <= (o.quiet_wait > 0 ? 3 : 1); ++attempt) {
        if (o.quiet_wait > 0) wait_for_quiet(o.quiet_wait);
        const CpuSample before = sample_cpu();
        const StreamTriad s = measure_stream_triad(o.stream_elements, 10);
        const double others = others_fraction(before, sample_cpu());
        const bool better = others <= disturbed_threshold
                                ? (stream_others > disturbed_threshold || s.gb_per_s > stream.gb_per_s)
                                : others < stream_others;
        if (attempt == 1 || better) stream = s, stream_others = others;
        if (stream_others <= disturbed_threshold && attempt >= 2) break;
    }
    std::printf("STREAM triad: %.1f GB/s (3 arrays of %s, %d threads, best of %d)%s\n",
                stream.gb_per_s, mb(double(o.stream_elements) * 8).c_str(), stream.threads,
                stream.runs,
                stream_others > disturbed_threshold
                    ? ("  [disturbed: other processes used " + pct(stream_others) +
                       " of the CPUs: the bound and the STREAM% column are too lenient]")
                          .c_str()
                    : "");
    return {stream, stream_others};
}

void print_plan(const Options& o) {
    std::printf("K = ");
    for (std::size_t i = 0; i < o.ks.size(); ++i) std::printf("%s%d", i ? "," : "", o.ks[i]);
    std::printf("; %d timed runs after a warm-up, median reported; GFLOP/s = 2*nnz*K/t; "
                "eff GB/s = (A as stored + B + C)/t;\nSTREAM%% = ((CSR A + B + C)/triad)/t; "
                "checks: |c-t| <= rtol*(|t| + sum|a_ij|*max|B|), rtol 1e-4 (float), 1e-10 "
                "(double)\n",
                o.repeat);
    std::fflush(stdout);
}

void write_json(const Options& o, Metrics& metrics, const Benchmark& bench, const StreamTriad& stream,
                double stream_others, double seconds) {
    auto& doc = metrics.json();
    doc["build_type"] = TESSEL_BENCH_BUILD_TYPE;
    doc["stream_triad"] = stream.json();
    doc["stream_triad"]["other_processes_cpu_fraction"] = stream_others;
    doc["quiet_wait_s"] = o.quiet_wait;
    doc["graphblas_method"] = o.graphblas_method;
    doc["threads"] = o.threads;
    doc["repeat"] = o.repeat;
    doc["ks"] = o.ks;
    doc["kernels"] = o.kernels;
    doc["tiled_ell"] = {{"block_rows", o.block_rows},
                        {"buffer_entries", o.buffer_entries},
                        {"register_factor", o.register_factor}};
    doc["peers_found"] = nlohmann::json::array();
    for (const auto& p : peers::found())
        doc["peers_found"].push_back({{"kernel", p.kernel}, {"library", p.library}});
    doc["peers_missing"] = peers::missing();
    doc["matrices"] = bench.matrices_json();
    doc["results"] = nlohmann::json::array();
    for (const auto& r : bench.rows()) doc["results"].push_back(r->json());
    doc["comparisons"] = nlohmann::json::array();
    for (const auto& c : bench.comparisons()) doc["comparisons"].push_back(c.json());
    doc["total_s"] = seconds;
    doc["all_checks_passed"] = !bench.failed();
    metrics.write(o.json);
    std::printf("JSON written to %s\n", o.json.c_str());
}

int run(int argc, char** argv) {
    Options o;
    CLI::App app{"tessel-bench-spmm: SpMM C = A*B (A sparse m x n, B dense n x K, row-major) with "
                 "every tessel kernel and the peer libraries found at build time, each result "
                 "checked, times compared with the STREAM-triad bound"};
    const auto names = add_options(app, o);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return tessel::app::parse_failure(app, e, "tessel-bench-spmm");
    }
    settle_options(app, o, names);
    peers::initialize(o.threads);
    peers::set_graphblas_method(o.graphblas_method);
    const std::vector<MatrixSpec> specs = matrix_specs(o);
    Metrics metrics("tessel-bench-spmm");
    print_machine(o, metrics);
    Timer total;
    const auto [stream, stream_others] = measure_bound_triad(o);
    print_plan(o);
    Benchmark bench(o, stream);
    for (const auto& spec : specs)
        for (const auto& p : o.precisions) {
            if (p == "float")
                bench.run_matrix<float>(spec, p);
            else
                bench.run_matrix<double>(spec, p);
        }
    print_summary(bench.comparisons());
    const double seconds = total.seconds();
    std::printf("\ntotal %.1f s; %s\n", seconds,
                bench.failed() ? "SOME CHECKS FAILED (see FAIL/ERROR above)" : "all checks passed");
    if (!o.json.empty()) write_json(o, metrics, bench, stream, stream_others, seconds);
    peers::finalize();
    return bench.failed() ? 1 : 0;
}

}  // namespace
}  // namespace tessel::bench

int main(int argc, char** argv) {
    return tessel::bench::run_bench("tessel-bench-spmm", [&] { return tessel::bench::run(argc, argv); });
}
