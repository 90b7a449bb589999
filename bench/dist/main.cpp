// tessel-bench-dist: every distributed SpMM variant on one matrix and a real or emulated
// topology, for several k: time, bytes per level, the cost model's prediction, the inter-node
// volume of hierarchical versus direct reduction, and the overlap won by pipelined minibatches.
#include <mpi.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/cpu_load.hpp"
#include "bench/common/table.hpp"
#include "bench/dist/bench_matrix.hpp"
#include "core/app/cli_checks.hpp"
#include "core/comm/cuda_aware.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/comm/topology.hpp"
#include "core/dist/dist_spmm.hpp"
#include "core/dist/sender_multiplies_spmm.hpp"
#include "core/error.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"
#include "partition/balanced_partition.hpp"
#include "partition/cost_model.hpp"
#include "partition/dist_setup.hpp"

namespace tessel::bench {
namespace {

using dist::DistAlgorithm;

struct Options {
    MatrixSpec matrix;
    std::string topology = "auto";
    std::vector<int> ks{16, 64, 256};
    std::string algorithms = "all";
    int batch = 1;
    size_type minibatch = 16;
    int reps = 5;
    std::string method = "p2p";
    std::string backend = "cpu";
    bool cuda_aware = false;
    std::string json;
    bool check = false;
    bool verbose = false;
    double quiet_wait = 0;
};

/// The paper's names (Selvitopi et al. 2021) for the grid variants, the CLI name otherwise.
std::string display(DistAlgorithm algorithm) {
    switch (algorithm) {
    case DistAlgorithm::a15d: return "sA-1.5D";
    case DistAlgorithm::a2d: return "sA-2D";
    case DistAlgorithm::c2d: return "sC-2D";
    case DistAlgorithm::a2d_async: return "sA-2D-AS";
    case DistAlgorithm::c2d_async: return "sC-2D-AS";
    default: return std::string(dist::to_string(algorithm));
    }
}

/// One variant as run: the algorithm plus the sender-multiplies minibatch/pipelining choice.
struct Variant {
    DistAlgorithm algorithm;
    size_type minibatch = 0;  // sender-multiplies only; 0 = all k at once
    bool pipelined = false;
    std::string name() const {
        std::string n = display(algorithm);
        if (minibatch > 0) n += " mb" + std::to_string(minibatch);
        if (pipelined) n += "+pipe";
        return n;
    }
};

struct Measured {
    Variant variant;
    double seconds = 0;                     // median over reps of the slowest rank
    std::map<std::string, double> phases;   // median over reps of the slowest rank
    std::vector<double> mbytes;             // per level, all ranks, per multiply
    double inter_node_mb = 0;
    partition::CostPrediction predicted;
    double check_error = -1;
};

int rank() { return comm::rank_of(MPI_COMM_WORLD); }
int ranks() { return comm::size_of(MPI_COMM_WORLD); }

double max_over_ranks(double v) {
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return v;
}

// A barrier that sleeps instead of spinning, so that waiting ranks do not load the machine
// while rank 0 waits for it to be quiet.
void sleeping_barrier() {
    MPI_Request request;
    TESSEL_MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &request));
    int done = 0;
    while (!done) {
        TESSEL_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

// B(i, j) as a cheap deterministic function, so that no rank needs the whole of B.
float b_entry(size_type i, size_type j) {
    return float((i * 7919 + j * 104729) % 2001 - 1000) / 1000.0f;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// Everything one variant needs to be timed.
struct Prepared {
    Variant variant;
    partition::DistSetupOptions setup;
    std::unique_ptr<dist::DistSpmm<float, std::int32_t>> op;
    dist::DenseBlocks<float> b, c;
    std::vector<double> times;
    std::map<std::string, std::vector<double>> phases;  // per rep, slowest rank
};

constexpr const char* phase_names[] = {"compute", "comm", "local", "global"};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// Builds every variant first, then times them round-robin (rep r of every variant before rep
// r + 1 of any), so that load from other processes falls on all variants alike.
std::vector<Measured> measure(const std::vector<Variant>& list, const BenchCsr& a, size_type k,
                              const comm::Topology& topology, const partition::MachineModel& model,
                              const Options& o) {
    std::vector<Prepared> runs(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto& r = runs[i];
        r.variant = list[i];
        r.setup.p_batch = dist::uses_process_grid(r.variant.algorithm) ? 1 : o.batch;
        r.setup.run.minibatch = r.variant.minibatch;
        r.setup.run.pipelined = r.variant.pipelined;
        r.setup.run.method = comm::parse_exchange_method(o.method);
        r.setup.run.backend = parse_backend(o.backend);
        r.setup.run.cuda_aware = o.cuda_aware;
        r.op = partition::make_dist_spmm(r.variant.algorithm, MPI_COMM_WORLD, topology, a, k, r.setup);
        r.b = dist::DenseBlocks<float>::allocate(r.op->b_ranges());
        for (std::size_t blk = 0; blk < r.b.ranges.size(); ++blk)
            for (size_type i2 = 0; i2 < r.b.ranges[blk].rows(); ++i2)
                for (size_type j = 0; j < r.b.ranges[blk].cols(); ++j)
                    r.b.blocks[blk](i2, j) =
                        b_entry(r.b.ranges[blk].row_begin + i2, r.b.ranges[blk].col_begin + j);
        r.op->multiply(r.b, r.c);  // warm-up
        r.op->reset_stats();
    }
    for (int rep = 0; rep < o.reps; ++rep)
        for (auto& r : runs) {
            TESSEL_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            double before[4], after[4];
            for (int ph = 0; ph < 4; ++ph) before[ph] = r.op->times().get(phase_names[ph]);
            Timer timer;
            r.op->multiply(r.b, r.c);
            r.times.push_back(max_over_ranks(timer.seconds()));
            for (int ph = 0; ph < 4; ++ph) after[ph] = r.op->times().get(phase_names[ph]) - before[ph];
            TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, after, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
            for (int ph = 0; ph < 4; ++ph) r.phases[phase_names[ph]].push_back(after[ph]);
        }
    std::vector<Measured> out;
    for (auto& r : runs) {
        Measured m;
        m.variant = r.variant;
        m.seconds = median(r.times);
        for (const char* phase : phase_names) m.phases[phase] = median(r.phases[phase]);
        const auto total = r.op->counters().summed(MPI_COMM_WORLD);
        for (int l = 0; l < total.num_levels(); ++l)
            m.mbytes.push_back(double(total.sent_bytes(l)) / o.reps / 1e6);
        m.inter_node_mb = double(total.inter_node_bytes()) / o.reps / 1e6;
        m.predicted = partition::predict_dist_spmm(r.variant.algorithm, a, k, topology, model, r.setup);
        if (o.check) {
            // Gather C and compare with the reference (small problems only: B is built whole).
            DenseMatrix<float> bg(a.cols(), k), cg(a.rows(), k), ref(a.rows(), k);
            for (size_type i = 0; i < a.cols(); ++i)
                for (size_type j = 0; j < k; ++j) bg(i, j) = b_entry(i, j);
            r.c.add_to_global(cg.view());
            TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, cg.data(), static_cast<int>(cg.size()),
                                           MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
            reference::spmm<float, std::int32_t>(a, bg.view(), ref.view());
            double worst = 0;
            for (size_type e = 0; e < cg.size(); ++e)
                worst = std::max(worst, double(std::abs(cg.data()[e] - ref.data()[e])) /
                                            (1.0 + std::abs(double(ref.data()[e]))));
            m.check_error = worst;
        }
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<Variant> variants(const Options& o, const BenchCsr& a, size_type k,
                              const comm::Topology& topology, const partition::MachineModel& model,
                              DistAlgorithm* automatic) {
    std::vector<Variant> out;
    if (o.algorithms == "auto") {
        partition::DistSetupOptions setup;
        setup.p_batch = o.batch;
        *automatic = partition::choose_dist_algorithm(a, k, topology, model, setup);
        out.push_back({*automatic});
        return out;
    }
    std::vector<DistAlgorithm> chosen;
    if (o.algorithms == "all") {
        chosen = dist::all_dist_algorithms();
    } else {
        std::stringstream in(o.algorithms);
        std::string name;
        while (std::getline(in, name, ',')) chosen.push_back(dist::parse_dist_algorithm(name));
    }
    for (auto algorithm : chosen) {
        out.push_back({algorithm});
        const bool sm = !dist::uses_process_grid(algorithm) && algorithm != DistAlgorithm::automatic;
        if (sm && o.minibatch > 0 && o.minibatch < k) {
            const size_type mb = dist::round_minibatch(o.minibatch, k);
            out.push_back({algorithm, mb, false});
            out.push_back({algorithm, mb, true});
        }
    }
    return out;
}

void add_options(CLI::App& app, Options& o) {
    app.add_option("--matrix", o.matrix.file, "Matrix Market file (instead of --generator)");
    app.add_option("--generator", o.matrix.generator, "tomo | stencil | random | powerlaw")
        ->capture_default_str();
    app.add_option("--n", o.matrix.n,
                   "Size: tomo pixels per side (= angles = channels), stencil side, rows otherwise")
        ->capture_default_str();
    app.add_flag("--transpose", o.matrix.transpose, "tomo: use Aᵀ (back-projection)");
    app.add_option("--order", o.matrix.order,
#ifdef TESSEL_HAVE_METIS
                   "auto | natural | hilbert | kmeans | metis | random"
#else
                   "auto | natural | hilbert | kmeans | random (metis: not in this build, no METIS)"
#endif
                   )
        ->capture_default_str();
    app.add_option("--tile", o.matrix.tile, "Hilbert tile (power of two)")->capture_default_str();
    app.add_option("--topology", o.topology,
                   "auto (hwloc + MPI) or a spec, outermost first, e.g. node=2,socket=2")
        ->capture_default_str();
    app.add_option("--k", o.ks, "Columns of B and C (several allowed)")->delimiter(',')->capture_default_str()
        ->check(tessel::app::at_least(1));
    app.add_option("--dist-algo", o.algorithms,
                   "all | auto | comma list of 1.5d-a, 2d-a, 2d-c, 2d-a-async, 2d-c-async, sm-direct, sm-hier")
        ->capture_default_str();
    app.add_option("--batch", o.batch, "Sender-multiplies: batch ranks splitting k")->capture_default_str();
    app.add_option("--minibatch", o.minibatch,
                   "Sender-multiplies: minibatch columns for the mb and pipelined rows (0: none)")
        ->capture_default_str();
    app.add_option("--reps", o.reps, "Timed repetitions (median reported)")->capture_default_str();
    app.add_option("--method", o.method, "Exchange method: p2p | neighbor")->capture_default_str();
    app.add_option("--backend", o.backend,
                   "Local SpMM: cpu, or cuda (sender-multiplies then keeps A, partial rows and "
                   "reductions on the GPU)")
        ->check(CLI::IsMember({"cpu", "cuda"}))
        ->capture_default_str();
    app.add_flag("--cuda-aware-mpi", o.cuda_aware,
                 "cuda: hand device buffers to MPI when it is CUDA-aware (default: pinned host staging)");
    app.add_option("--json", o.json, "Write every measurement and the machine here");
    app.add_flag("--check", o.check, "Check every result against reference::spmm (builds B whole)");
    app.add_flag("--verbose", o.verbose, "Print the topology groups of every rank");
    app.add_option("--quiet-wait", o.quiet_wait,
                   "Before each k, wait up to this many seconds for other processes to go quiet")
        ->capture_default_str();
}

// Rank 0: the matrix, the topology and the reorderings compared (tiled-ELL reuse and the
// inter-node volume of the reduction plans).
void print_matrix_and_orders(const Options& o, const BenchMatrix& matrix, const BenchCsr& a,
                             const comm::Topology& topology, const std::string& staging, nlohmann::json& doc) {
    std::printf("tessel-bench-dist: %s, %lld x %lld, %lld nonzeros, order %s\n", matrix.label.c_str(),
                (long long)a.rows(), (long long)a.cols(), (long long)a.nnz(), o.matrix.order.c_str());
    std::printf("  topology: %s%s; buffers: %s\n", topology.describe().c_str(),
                o.topology == "auto" ? " (detected)" : " (emulated)",
                staging.c_str());
    // Orders compared: reuse of tiled ELL and inter-node volume of the reduction plans.
    const auto orders = reorder_table(matrix, o.matrix, topology);
    doc["orders"] = orders;
    TextTable t({"order", "reuse (32-row blocks)", "reuse (256-row)", "inter-node B/col direct",
                 "inter-node B/col hier", "cut", "order s"});
    for (const auto& r : orders) {
        const double d = r["inter_node_bytes_per_column_direct"], h = r["inter_node_bytes_per_column_hierarchical"];
        t.add_row({r["order"], fixed(r["reuse_block32"], 2), fixed(r["reuse_block256"], 2),
                   fixed(d, 0), fixed(h, 0), d > 0 ? fixed(100.0 * (1.0 - h / d), 1) + "%" : "-",
                   fixed(r["order_seconds"], 3)});
    }
    std::printf("\nReorderings (tiled-ELL reuse = nnz / staged entries; reduction plans on this topology; "
                "order s: seconds to compute the order and permute rows and columns):\n");
    t.print(std::cout);
}

// The rows of rank 0's nnz-balanced share: the local-size sample for the rate.
BenchCsr local_sample(const BenchCsr& a) {
    const auto ro = partition::row_offsets_by_nnz(a, ranks());
    std::vector<size_type> ptr{0};
    std::vector<std::int32_t> col(a.col_idx().begin() + a.row_ptr()[ro[0]], a.col_idx().begin() + a.row_ptr()[ro[1]]);
    std::vector<float> val(a.values().begin() + a.row_ptr()[ro[0]], a.values().begin() + a.row_ptr()[ro[1]]);
    for (size_type i = ro[0]; i < ro[1]; ++i) ptr.push_back(a.row_ptr()[i + 1] - a.row_ptr()[ro[0]]);
    return BenchCsr(ro[1] - ro[0], a.cols(), ptr, col, val, "sample");
}

// CPU used by processes that are not ours while measuring: the machine's busy time minus all
// our ranks'. Collective.
double others_cpu_fraction(const CpuSample& before, const CpuSample& after) {
    long long ours = after.self - before.self;
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ours, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    const long long total = after.machine_total - before.machine_total;
    return before.valid && after.valid && total > 0
               ? std::max(0.0, double(after.machine_busy - before.machine_busy - ours) / double(total))
               : 0.0;
}

// Rank 0: one k's table of variants (time, model, phases, bytes per level) and its JSON.
nlohmann::json report_variants(const Options& o, int k, const comm::Topology& topology,
                               const partition::MachineModel& model, const std::vector<Measured>& results,
                               double others, double waited) {
    std::printf("\nk = %d   (model: spmm %.2f G nnz·col/s per rank", k, model.spmm_rate / 1e9);
    for (int l = 0; l < topology.num_levels(); ++l)
        std::printf("; %s α %.1f us β %.2f GB/s", topology.level_name(l).c_str(),
                    model.levels[l].alpha * 1e6, 1e-9 / std::max(model.levels[l].beta, 1e-15));
    std::printf(")\n");
    std::printf("  machine: other processes used about %.0f%% of the CPUs while measuring (waited %.1f s)\n",
                100.0 * others, waited);
    std::vector<std::string> header{"variant", "time ms", "model ms", "compute", "comm"};
    for (int l = 0; l < topology.num_levels(); ++l) header.push_back("MB " + topology.level_name(l));
    header.push_back("MB inter-node");
    if (o.check) header.push_back("max err");
    TextTable t(header);
    nlohmann::json kj = {{"k", k}, {"variants", nlohmann::json::array()},
                         {"others_cpu_fraction", others}, {"quiet_wait_s", waited}};
    kj["model"] = {{"spmm_rate", model.spmm_rate}, {"levels", nlohmann::json::array()}};
    for (int l = 0; l < topology.num_levels(); ++l)
        kj["model"]["levels"].push_back({{"name", topology.level_name(l)},
                                         {"alpha_s", model.levels[l].alpha},
                                         {"beta_s_per_byte", model.levels[l].beta}});
    for (const auto& m : results) {
        const double comm_s = m.phases.at("comm") + m.phases.at("local") + m.phases.at("global");
        std::vector<std::string> row{m.variant.name(), fixed(m.seconds * 1e3, 3),
                                     fixed(m.predicted.total * 1e3, 3),
                                     fixed(m.phases.at("compute") * 1e3, 3), fixed(comm_s * 1e3, 3)};
        for (double mb : m.mbytes) row.push_back(fixed(mb, 3));
        row.push_back(fixed(m.inter_node_mb, 3));
        if (o.check) row.push_back(m.check_error >= 0 ? fixed(m.check_error, 7) : "-");
        t.add_row(row);
        kj["variants"].push_back({{"variant", m.variant.name()},
                                  {"algorithm", dist::to_string(m.variant.algorithm)},
                                  {"minibatch", m.variant.minibatch},
                                  {"pipelined", m.variant.pipelined},
                                  {"seconds", m.seconds},
                                  {"phases", m.phases},
                                  {"mbytes_per_level", m.mbytes},
                                  {"inter_node_mbytes", m.inter_node_mb},
                                  {"predicted", {{"compute", m.predicted.compute},
                                                 {"comm", m.predicted.comm},
                                                 {"total", m.predicted.total}}},
                                  {"check_error", m.check_error}});
    }
    std::printf("  (time: median of %d multiplies, slowest rank; model: cost-model prediction; compute, "
                "comm: median phase times in ms; MB: bytes sent per multiply, all ranks, by the level "
                "the two ranks share)\n",
                o.reps);
    t.print(std::cout);
    return kj;
}

// Rank 0: the model's choice against the fastest, hierarchical against direct reduction, and
// what pipelining hid.
void report_choices(const Options& o, const BenchCsr& a, int k, const comm::Topology& topology,
                    const partition::MachineModel& model, const std::vector<Measured>& results,
                    DistAlgorithm automatic, nlohmann::json& kj) {
    if (automatic != DistAlgorithm::automatic)
        std::printf("  --dist-algo auto chose %s\n", std::string(dist::to_string(automatic)).c_str());
    else {
        partition::DistSetupOptions setup;
        setup.p_batch = o.batch;
        const auto choice = partition::choose_dist_algorithm(a, k, topology, model, setup);
        const auto fastest = std::min_element(results.begin(), results.end(), [](const auto& x, const auto& y) {
            return x.seconds < y.seconds;
        });
        std::printf("  cost model would choose %s; fastest measured: %s\n",
                    std::string(dist::to_string(choice)).c_str(), fastest->variant.name().c_str());
        kj["model_choice"] = dist::to_string(choice);
        kj["fastest"] = fastest->variant.name();
    }
    // Hierarchical versus direct reduction, and what pipelining hid.
    auto find = [&](DistAlgorithm alg, size_type mb, bool pipe) -> const Measured* {
        for (const auto& m : results)
            if (m.variant.algorithm == alg && (m.variant.minibatch > 0) == (mb > 0) && m.variant.pipelined == pipe)
                return &m;
        return nullptr;
    };
    const auto* direct = find(DistAlgorithm::sm_direct, 0, false);
    const auto* hier = find(DistAlgorithm::sm_hierarchical, 0, false);
    if (direct && hier && direct->inter_node_mb > 0) {
        const double cut = 1.0 - hier->inter_node_mb / direct->inter_node_mb;
        std::printf("  inter-node volume: direct %.3f MB, hierarchical %.3f MB: cut by %.1f%% (target >= 60%%)\n",
                    direct->inter_node_mb, hier->inter_node_mb, 100.0 * cut);
        kj["inter_node_cut"] = cut;
    }
    for (auto alg : {DistAlgorithm::sm_direct, DistAlgorithm::sm_hierarchical}) {
        const auto* seq = find(alg, 1, false);
        const auto* pipe = find(alg, 1, true);
        if (!seq || !pipe) continue;
        // Communication of the sequential run: its time beyond the local SpMM (medians).
        const double comm_s = std::max(0.0, seq->seconds - seq->phases.at("compute"));
        const double hidden = comm_s > 0 ? (seq->seconds - pipe->seconds) / comm_s : 0.0;
        std::printf("  %s minibatch %lld: sequential %.3f ms (compute %.3f, comm %.3f), pipelined %.3f ms: "
                    "%.1f%% of the communication hidden (target >= 30%%)\n",
                    std::string(dist::to_string(alg)).c_str(), (long long)seq->variant.minibatch,
                    seq->seconds * 1e3, seq->phases.at("compute") * 1e3, comm_s * 1e3,
                    pipe->seconds * 1e3, 100.0 * hidden);
        kj[std::string("hidden_") + std::string(dist::to_string(alg))] = hidden;
    }
}

int run(int argc, char** argv) {
    Options o;
    CLI::App app{"tessel-bench-dist: distributed SpMM variants, bytes per topology level, the cost "
                 "model's prediction, hierarchical vs direct reduction and pipelining (run under "
                 "mpiexec)"};
    add_options(app, o);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return tessel::app::parse_failure(app, e, "tessel-bench-dist", rank() == 0);
    }
    if (o.reps < 1) TESSEL_INVALID_INPUT("--reps", 0, "must be at least 1");
    if (o.backend == "cuda" && !cuda::device_available())
        TESSEL_THROW(NotCompiled, "--backend cuda: no usable CUDA device (device: " +
                                      cuda::device_description() + ")");

    const bool root = rank() == 0;
    const auto topology = comm::make_topology(o.topology, MPI_COMM_WORLD);
    const auto matrix = build_matrix(o.matrix);
    const auto a = ordered(matrix, o.matrix.order, o.matrix);
    Metrics metrics("tessel-bench-dist");
    auto& doc = metrics.json();
    doc["matrix"] = {{"label", matrix.label}, {"rows", a.rows()}, {"cols", a.cols()}, {"nnz", a.nnz()},
                     {"order", o.matrix.order}};
    doc["ranks"] = ranks();
    doc["topology"] = topology.describe();
    const std::string staging = o.backend == "cuda"
                                    ? std::string(comm::to_string(comm::choose_device_staging(o.cuda_aware)))
                                    : std::string("host memory (cpu backend)");
    doc["backend"] = o.backend;
    doc["staging"] = staging;
    if (root) print_matrix_and_orders(o, matrix, a, topology, staging, doc);
    const BenchCsr sample = local_sample(a);
    doc["runs"] = nlohmann::json::array();
    if (root && o.verbose)
        for (int r = 0; r < topology.ranks(); ++r) {
            std::printf("  rank %d:", r);
            for (int l = 0; l < topology.num_levels(); ++l)
                std::printf(" %s %d", topology.level_name(l).c_str(), topology.group(l, r));
            std::printf("\n");
        }
    for (int k : o.ks) {
        // Other processes on the machine distort timings: wait for quiet, then measure how busy.
        double waited = 0;
        if (root && o.quiet_wait > 0) waited = wait_for_quiet(o.quiet_wait);
        sleeping_barrier();
        const CpuSample before = sample_cpu();
        const auto model = partition::calibrate_machine(MPI_COMM_WORLD, topology, sample, k);
        DistAlgorithm automatic = DistAlgorithm::automatic;
        const auto list = variants(o, a, k, topology, model, &automatic);
        const auto results = measure(list, a, k, topology, model, o);
        const double others = others_cpu_fraction(before, sample_cpu());
        if (!root) continue;
        nlohmann::json kj = report_variants(o, k, topology, model, results, others, waited);
        report_choices(o, a, k, topology, model, results, automatic, kj);
        doc["runs"].push_back(kj);
    }
    if (root && !o.json.empty()) {
        metrics.write(o.json);
        std::printf("\nwrote %s\n", o.json.c_str());
    }
    return 0;
}

}  // namespace
}  // namespace tessel::bench

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int status = 0;
    bool everywhere = false;  // the same error on every rank: finalize, do not abort
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    try {
        status = tessel::bench::run(argc, argv);
        everywhere = true;  // a status returned (bad options) is the same on every rank
    } catch (const tessel::InvalidInput& e) {
        // Bad options or input files are seen alike by every rank.
        if (rank == 0) std::fprintf(stderr, "tessel-bench-dist: %s\n", e.message().c_str());
        status = 1;
        everywhere = true;
    } catch (const tessel::Error& e) {
        std::fprintf(stderr, "tessel-bench-dist (rank %d): %s\n", rank, e.message().c_str());
        status = 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tessel-bench-dist (rank %d): %s\n", rank, e.what());
        status = 1;
    }
    // Any other error may strike some ranks only and leave the others inside a collective.
    if (status != 0 && !everywhere) MPI_Abort(MPI_COMM_WORLD, status);
    const int worst = status;
    MPI_Finalize();
    return worst;
}
