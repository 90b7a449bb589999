// tessel-bench-spgemm: C := A·A with tessel's two-phase SpGEMM (symbolic, numeric, and the
// numeric phase reused with new values) on built-in and Matrix Market matrices, side by side
// with SuiteSparse:GraphBLAS GrB_mxm and Eigen's sparse product when they are installed.
// Flops are counted as multiplications.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bench/common/cpu_load.hpp"
#include "bench/common/input_matrix.hpp"
#include "bench/common/table.hpp"
#include "bench/spgemm/peers.hpp"
#include "core/app/cli_checks.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/kernels/spgemm.hpp"
#include "core/statistics.hpp"
#include "core/timer.hpp"
#ifdef TESSEL_BENCH_HAVE_IO
#include "io/matrix_market.hpp"
#endif

namespace tessel::bench {
namespace {

struct Options {
    std::vector<std::string> matrix_files;
    std::vector<std::string> generators{"stencil", "random", "powerlaw"};
    size_type stencil_n = 1000;
    size_type random_rows = 200000;
    size_type random_per_row = 8;
    size_type powerlaw_rows = 200000;
    double powerlaw_mean = 8;
    int threads = 0;
    int repeat = 5;
    bool index64 = false;
    bool sorted = true;
    bool peers = true;
    double quiet_wait = 0;
    std::string accumulator = "auto";
    std::string compression = "auto";
    size_type dense_limit = spgemm_dense_column_limit;
    size_type l1_slots = spgemm_hash_l1_slots;
    std::string json;
    bool verbose = false;
};

double best(const std::vector<double>& v) {
    return v.empty() ? NAN : *std::min_element(v.begin(), v.end());
}


nlohmann::json finite(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

std::string ms(double seconds) { return std::isfinite(seconds) ? format_number(1e3 * seconds, 3) : "-"; }

SpgemmAccumulator parse_accumulator(const std::string& s) {
    if (s == "auto") return SpgemmAccumulator::automatic;
    if (s == "dense") return SpgemmAccumulator::dense;
    if (s == "hash") return SpgemmAccumulator::hash;
    TESSEL_INVALID_INPUT("--accumulator", 0, "expected auto, dense or hash, not '" + s + "'");
}

SpgemmCompression parse_compression(const std::string& s) {
    if (s == "auto") return SpgemmCompression::automatic;
    if (s == "always") return SpgemmCompression::always;
    if (s == "never") return SpgemmCompression::never;
    TESSEL_INVALID_INPUT("--compression", 0, "expected auto, always or never, not '" + s + "'");
}

/// One timed implementation on one matrix.
struct Result {
    std::string matrix, implementation, detail;
    double symbolic = NAN, numeric = NAN, total = NAN;  // best seconds
    double total_median = NAN;
    double gflops = NAN;
    size_type nnz = 0;
    double value_sum = 0;
    bool check_ok = true;
    double others = 0;  // share of the CPUs other processes used while timing
    nlohmann::json json() const {
        return {{"matrix", matrix},
                {"implementation", implementation},
                {"detail", detail},
                {"symbolic_s", finite(symbolic)},
                {"numeric_s", finite(numeric)},
                {"total_s", finite(total)},
                {"total_median_s", finite(total_median)},
                {"gflop_per_s", finite(gflops)},
                {"nnz_c", nnz},
                {"value_sum", value_sum},
                {"check_ok", check_ok},
                {"other_processes_cpu_fraction", others}};
    }
};

template <typename I>
struct Input {
    std::string name;
    Csr<double, I> a;
    bool transpose_b = false;  // rectangular file: A·Aᵀ instead of A·A
};

template <typename I>
std::vector<Input<I>> make_inputs(const Options& o) {
    std::vector<Input<I>> in;
    for (const auto& g : o.generators) {
        if (g == "stencil") {
            in.push_back({"stencil_2d " + std::to_string(o.stencil_n) + "^2",
                          generate::stencil_2d<double, I>(o.stencil_n)});
        } else if (g == "random") {
            in.push_back({"random " + std::to_string(o.random_rows) + " x" +
                              std::to_string(o.random_per_row),
                          generate::random_uniform<double, I>(o.random_rows, o.random_rows,
                                                              o.random_per_row, 7)});
        } else if (g == "powerlaw") {
            in.push_back({"powerlaw " + std::to_string(o.powerlaw_rows) + " mean " +
                              format_number(o.powerlaw_mean, 3),
                          generate::power_law<double, I>(o.powerlaw_rows, o.powerlaw_rows,
                                                         o.powerlaw_mean, 2.1, 11)});
        } else {
            TESSEL_INVALID_INPUT("--generators", 0,
                                 "unknown generator '" + g + "' (stencil, random, powerlaw)");
        }
    }
    for (const auto& path : o.matrix_files) {
#ifdef TESSEL_BENCH_HAVE_IO
        auto a = io::read_matrix_market_csr<double, I>(path);
        require_nonempty(a, path);
        const bool square = a.rows() == a.cols();
        const auto slash = path.find_last_of('/');
        in.push_back({path.substr(slash == std::string::npos ? 0 : slash + 1) +
                          (square ? "" : " (A·Aᵀ)"),
                      std::move(a), !square});
#else
        TESSEL_THROW(NotCompiled, "--matrix " + path +
                                      ": this build has no tessel::io (Matrix Market reader)");
#endif
    }
    return in;
}

double value_sum(const std::vector<double>& v) {
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (std::size_t e = 0; e < v.size(); ++e) s += v[e];
    return s;
}

// Both sums come from the same products in different orders.
bool sums_agree(double x, double y, double scale) {
    return std::abs(x - y) <= 1e-9 * std::max(1.0, scale);
}

template <typename I>
class Bench {
public:
    explicit Bench(const Options& o) : o_(o) {
        options_.accumulator = parse_accumulator(o.accumulator);
        options_.compression = parse_compression(o.compression);
        options_.dense_column_limit = o.dense_limit;
        options_.hash_l1_slots = o.l1_slots;
    }

    void run(const Input<I>& input) {
        const Csr<double, I>& a = input.a;
        Csr<double, I> at;
        if (input.transpose_b) at = transpose(a);
        const Csr<double, I>& b = input.transpose_b ? at : a;
        // New values, same pattern, for the reused numeric phase.
        Csr<double, I> a2 = a;
        for (auto& v : a2.values_mut()) v *= 1.25;
        const Csr<double, I>& b2 = input.transpose_b ? at : a2;
        const double factor = input.transpose_b ? 1.25 : 1.5625;
        auto peers = make_peers(a, b);
        if (o_.quiet_wait > 0) wait_for_quiet(o_.quiet_wait);
        const Rounds m = measure_rounds(a, b, a2, b2, peers);
        if (o_.verbose) std::cout << "  " << input.name << ": " << m.plan.describe() << "\n";
        add_results(input.name, m, peers, factor);
        matrices_.push_back({{"name", input.name},
                             {"rows", a.rows()},
                             {"cols", b.cols()},
                             {"nnz_a", a.nnz()},
                             {"nnz_b", b.nnz()},
                             {"flops", m.plan.flops},
                             {"nnz_c", m.plan.nnz()},
                             {"max_row_flops", m.plan.max_row_flops},
                             {"max_row_nnz", m.plan.max_row_nnz},
                             {"plan", m.plan.describe()}});
    }

    using Peers = std::vector<std::unique_ptr<spgemm_peers::PeerProduct>>;

    Peers make_peers([[maybe_unused]] const Csr<double, I>& a, [[maybe_unused]] const Csr<double, I>& b) const {
        Peers peers;
        if (o_.peers) {
#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
            peers.push_back(spgemm_peers::make_graphblas(a, b));
#endif
#ifdef TESSEL_BENCH_HAVE_EIGEN
            peers.push_back(spgemm_peers::make_eigen(a, b));
#endif
        }
        return peers;
    }

    // What the rounds measured: times per phase and implementation, the products and their sums.
    struct Rounds {
        SpgemmPlan plan;
        Csr<double, I> c, cs;
        std::vector<double> sym, num, total, reuse, sorted;
        std::vector<std::vector<double>> peer_times;
        double sum = 0, scale = 0, reuse_sum = 0, others = 0;
    };

    // Every implementation once per round, one warm-up round first, so that all of them see
    // the same conditions on a shared machine; the best round of each is reported.
    Rounds measure_rounds(const Csr<double, I>& a, const Csr<double, I>& b, const Csr<double, I>& a2,
                          const Csr<double, I>& b2, Peers& peers) const {
        Rounds m;
        m.peer_times.resize(peers.size());
        const CpuSample before = sample_cpu();
        for (int r = -1; r < o_.repeat; ++r) {
            Timer t;
            m.plan = cpu::spgemm_symbolic(a, b, options_);
            const double s = t.seconds();
            Csr<double, I> fresh;
            t.restart();
            cpu::spgemm_numeric(m.plan, a, b, fresh);
            const double n = t.seconds();
            if (r >= 0) m.sym.push_back(s), m.num.push_back(n), m.total.push_back(s + n);
            m.c = std::move(fresh);  // the previous C is freed outside the timing
            if (r == o_.repeat - 1) {
                m.sum = value_sum(m.c.values());
                m.scale = 0;
                for (double v : m.c.values()) m.scale += std::abs(v);
            }
            t.restart();
            cpu::spgemm_numeric(m.plan, a2, b2, m.c);  // C has the plan's pattern: values in place
            if (r >= 0) m.reuse.push_back(t.seconds());
            if (r == o_.repeat - 1) m.reuse_sum = value_sum(m.c.values());
            if (o_.sorted) {
                SpgemmOptions so = options_;
                so.sort_columns = true;
                t.restart();
                auto product = cpu::spgemm(a, b, so);
                if (r >= 0) m.sorted.push_back(t.seconds());
                m.cs = std::move(product);
            }
            for (std::size_t p = 0; p < peers.size(); ++p) {
                const double seconds = peers[p]->run();
                if (r >= 0) m.peer_times[p].push_back(seconds);
            }
        }
        m.others = others_fraction(before, sample_cpu());
        return m;
    }

    // One result row per implementation: fresh product, reused plan, sorted, each peer.
    void add_results(const std::string& name, const Rounds& m, const Peers& peers, double factor) {
        const double flops = double(m.plan.flops);
        Result fresh;
        fresh.matrix = name;
        fresh.implementation = "tessel cpu";
        fresh.detail = std::string("symbolic ") + std::string(to_string(m.plan.symbolic_accumulator)) +
                       (m.plan.compressed ? " (bit sets)" : "") + ", numeric " +
                       std::string(to_string(m.plan.numeric_accumulator)) + ", unsorted";
        fresh.symbolic = best(m.sym);
        fresh.numeric = best(m.num);
        fresh.total = best(m.total);
        fresh.total_median = median(m.total);
        fresh.gflops = flops / fresh.total / 1e9;
        fresh.nnz = m.c.nnz();
        fresh.value_sum = m.sum;
        fresh.others = m.others;
        add(fresh);

        Result re;
        re.matrix = name;
        re.implementation = "tessel cpu reuse";
        re.detail = "numeric phase only, plan and C's pattern reused, new values";
        re.numeric = re.total = best(m.reuse);
        re.total_median = median(m.reuse);
        re.gflops = flops / re.total / 1e9;
        re.nnz = m.c.nnz();
        re.value_sum = m.reuse_sum;
        re.check_ok = sums_agree(m.reuse_sum, factor * m.sum, factor * m.scale);
        re.others = m.others;
        add(re);

        if (o_.sorted) {
            Result sr;
            sr.matrix = name;
            sr.implementation = "tessel cpu sorted";
            sr.detail = "both phases, sort_columns";
            sr.total = best(m.sorted);
            sr.total_median = median(m.sorted);
            sr.gflops = flops / sr.total / 1e9;
            sr.nnz = m.cs.nnz();
            sr.value_sum = value_sum(m.cs.values());
            sr.check_ok = m.cs.sorted() && sr.nnz == fresh.nnz && sums_agree(sr.value_sum, m.sum, m.scale);
            sr.others = m.others;
            add(sr);
        }
        for (std::size_t p = 0; p < peers.size(); ++p) {
            Result r;
            r.matrix = name;
            r.implementation = peers[p]->name();
            r.detail = peers[p]->detail();
            r.total = best(m.peer_times[p]);
            r.total_median = median(m.peer_times[p]);
            r.gflops = flops / r.total / 1e9;
            r.nnz = peers[p]->nnz;
            r.value_sum = peers[p]->value_sum;
            r.check_ok = r.nnz == fresh.nnz && sums_agree(r.value_sum, m.sum, m.scale);
            r.others = m.others;
            add(r);
        }
    }

    void print(std::ostream& out) const {
        TextTable table({"matrix", "implementation", "symbolic ms", "numeric ms", "total ms",
                         "GFLOP/s", "ratio", "nnz(C)", "check", "busy"});
        std::string last;
        for (const auto& r : results_) {
            if (!last.empty() && r.matrix != last) table.add_rule();
            last = r.matrix;
            table.add_row({r.matrix, r.implementation, ms(r.symbolic), ms(r.numeric), ms(r.total),
                           format_number(r.gflops, 3), ratio(r), std::to_string(r.nnz),
                           r.check_ok ? "ok" : "FAIL", format_number(100 * r.others, 2) + "%"});
        }
        table.print(out);
        out << "  times: best of " << o_.repeat
            << " runs after a warm-up. ratio: on the reuse row the fresh product's time over the "
               "reused numeric phase's; on the sorted row its time over the unsorted product's; "
               "on a peer's row the peer's time over tessel's fresh product (> 1: tessel faster). "
               "busy: CPU share other processes used while timing.\n";
    }

    /// The ratio column (see print()).
    std::string ratio(const Result& r) const {
        const Result* fresh = find(r.matrix, "tessel cpu");
        if (!fresh || &r == fresh) return "-";
        const double x = r.implementation == "tessel cpu reuse" ? fresh->total / r.total
                                                                 : r.total / fresh->total;
        return format_number(x, 3) + "x";
    }

    nlohmann::json json() const {
        nlohmann::json rs = nlohmann::json::array();
        for (const auto& r : results_) rs.push_back(r.json());
        return {{"matrices", matrices_}, {"results", rs}};
    }

    bool failed() const {
        return std::any_of(results_.begin(), results_.end(), [](const Result& r) { return !r.check_ok; });
    }

private:
    void add(const Result& r) {
        results_.push_back(r);
        if (o_.verbose)
            std::cout << "    " << r.implementation << ": total " << ms(r.total) << " ms (median "
                      << ms(r.total_median) << "), " << format_number(r.gflops, 3) << " GFLOP/s"
                      << (r.check_ok ? "" : "  CHECK FAILED") << "\n";
    }

    const Result* find(const std::string& matrix, const std::string& implementation) const {
        for (const auto& r : results_)
            if (r.matrix == matrix && r.implementation == implementation) return &r;
        return nullptr;
    }

    const Options& o_;
    SpgemmOptions options_;
    std::vector<Result> results_;
    nlohmann::json matrices_ = nlohmann::json::array();
};

template <typename I>
int run_all(const Options& o, nlohmann::json& report) {
    Bench<I> bench(o);
    for (const auto& input : make_inputs<I>(o)) {
        if (o.verbose)
            std::cout << "matrix " << input.name << ": " << input.a.rows() << " x "
                      << input.a.cols() << ", nnz " << input.a.nnz() << "\n";
        bench.run(input);
    }
    std::cout << "\n";
    bench.print(std::cout);
    report["runs"] = bench.json();
    return bench.failed() ? 1 : 0;
}

}  // namespace
}  // namespace tessel::bench

int main(int argc, char** argv) {
    using namespace tessel;
    using namespace tessel::bench;
    Options o;
    CLI::App app{"tessel-bench-spgemm: C = A·A with tessel's two-phase SpGEMM (symbolic, numeric, "
                 "reused numeric) against SuiteSparse:GraphBLAS and Eigen when installed. "
                 "GFLOP/s counts multiplications."};
    app.add_option("--matrix", o.matrix_files, "Matrix Market file(s); rectangular ones run A·Aᵀ")
        ->check(CLI::ExistingFile);
    app.add_option("--generators", o.generators,
                   "built-in matrices: stencil, random, powerlaw (none: --generators '')")
        ->delimiter(',');
    app.add_option("--stencil-n", o.stencil_n, "2-D stencil grid side (n² rows)");
    app.add_option("--random-rows", o.random_rows, "random matrix rows (square)");
    app.add_option("--random-per-row", o.random_per_row, "random matrix entries per row");
    app.add_option("--powerlaw-rows", o.powerlaw_rows, "power-law matrix rows (square)");
    app.add_option("--powerlaw-mean", o.powerlaw_mean, "power-law mean entries per row");
    app.add_option("--threads", o.threads, "OpenMP threads for tessel and GraphBLAS (0: default)");
    app.add_option("--repeat", o.repeat, "timed runs per implementation (after one warm-up)")
        ->check(tessel::app::at_least(1));
    app.add_flag("--index64", o.index64, "64-bit column indices (default 32-bit)");
    app.add_flag("!--no-sorted", o.sorted, "skip the sorted-output tessel run");
    app.add_flag("!--no-peers", o.peers, "skip GraphBLAS and Eigen");
    app.add_option("--accumulator", o.accumulator, "force auto, dense or hash");
    app.add_option("--compression", o.compression, "symbolic bit sets: auto (0.85 rule), always, never");
    app.add_option("--dense-limit", o.dense_limit, "meta-algorithm: dense up to this many columns");
    app.add_option("--l1-slots", o.l1_slots, "first hash level slots per thread (power of two)");
    app.add_option("--quiet-wait", o.quiet_wait,
                   "wait up to this many seconds for other processes to go quiet before each matrix");
    app.add_option("--json", o.json, "write the results as JSON to this file");
    app.add_flag("--verbose", o.verbose, "print the plan of every product (the meta-algorithm's choice)");
    CLI11_PARSE(app, argc, argv);
    o.generators.erase(std::remove(o.generators.begin(), o.generators.end(), ""), o.generators.end());

    try {
        if (o.threads > 0) omp_set_num_threads(o.threads);
        const int threads = omp_get_max_threads();
        nlohmann::json report = {{"benchmark", "tessel-bench-spgemm"},
                                 {"threads", threads},
                                 {"index_bits", o.index64 ? 64 : 32},
                                 {"repeat", o.repeat},
                                 {"flops", "multiplications"}};
        std::cout << "tessel-bench-spgemm: C = A·A, double values, " << (o.index64 ? 64 : 32)
                  << "-bit indices, " << threads << " threads, best of " << o.repeat << "\n";
        nlohmann::json peers = nlohmann::json::array();
#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
        spgemm_peers::graphblas_initialize(threads);
        peers.push_back(spgemm_peers::graphblas_version());
#endif
#ifdef TESSEL_BENCH_HAVE_EIGEN
        peers.push_back(spgemm_peers::eigen_version());
#endif
        report["peers"] = peers;
        std::cout << "peers: " << (peers.empty() ? "none installed" : peers.dump()) << "\n";
        const int rc = o.index64 ? run_all<std::int64_t>(o, report) : run_all<std::int32_t>(o, report);
#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
        spgemm_peers::graphblas_finalize();
#endif
        if (!o.json.empty()) {
            std::ofstream out(o.json);
            out << report.dump(2) << "\n";
            if (!out) TESSEL_THROW(Error, "cannot write " + o.json);
        }
        if (rc) std::cerr << "tessel-bench-spgemm: a result check failed\n";
        return rc;
    } catch (const Error& e) {
        std::cerr << "tessel-bench-spgemm: " << e.message() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "tessel-bench-spgemm: " << e.what() << "\n";
        return 1;
    }
}
