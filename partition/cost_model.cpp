// The alpha-beta + local-rate model of the distributed SpMM variants, and its calibration.
#include "partition/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/dist/sender_multiplies_spmm.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm.hpp"
#include "core/timer.hpp"

namespace tessel::partition {

using dist::DistAlgorithm;

LevelCost MachineModel::at(int level) const {
    if (level < 0) return {0.0, 0.0};
    if (levels.empty()) return {};
    return levels[std::min<std::size_t>(level, levels.size() - 1)];
}

double MachineModel::message(int level, double bytes) const {
    if (level < 0) return 0.0;
    const LevelCost c = at(level);
    return c.alpha + c.beta * bytes;
}

namespace {

// The fastest one-way time of `reps` round trips: the minimum resists other load on the machine.
double ping_pong(MPI_Comm comm, int me, int peer, std::vector<char>& buffer, int reps) {
    const int bytes = static_cast<int>(buffer.size());
    double fastest = 1e30;
    for (int r = 0; r < reps; ++r) {
        Timer timer;
        if (me == 0) {
            TESSEL_MPI_CHECK(MPI_Send(buffer.data(), bytes, MPI_BYTE, peer, 31, comm));
            TESSEL_MPI_CHECK(MPI_Recv(buffer.data(), bytes, MPI_BYTE, peer, 31, comm, MPI_STATUS_IGNORE));
        } else {
            TESSEL_MPI_CHECK(MPI_Recv(buffer.data(), bytes, MPI_BYTE, 0, 31, comm, MPI_STATUS_IGNORE));
            TESSEL_MPI_CHECK(MPI_Send(buffer.data(), bytes, MPI_BYTE, 0, 31, comm));
        }
        fastest = std::min(fastest, timer.seconds() / 2.0);
    }
    return fastest;
}

int log2_ceil(int q) {
    int b = 0;
    while ((1 << b) < q) ++b;
    return b;
}

// nnz of every (row block, column block) pair of a.
template <typename V, typename I>
std::vector<std::vector<size_type>> block_nnz(const Csr<V, I>& a, const std::vector<size_type>& ro,
                                              const std::vector<size_type>& co) {
    const std::size_t R = ro.size() - 1, C = co.size() - 1;
    std::vector<std::vector<size_type>> out(R, std::vector<size_type>(C, 0));
    for (std::size_t i = 0; i < R; ++i)
        for (size_type g = ro[i]; g < ro[i + 1]; ++g)
            for (size_type e = a.row_ptr()[g]; e < a.row_ptr()[g + 1]; ++e) {
                const std::size_t j = std::upper_bound(co.begin(), co.end(), size_type(a.col_idx()[e])) -
                                      co.begin() - 1;
                ++out[i][j];
            }
    return out;
}

}  // namespace

template <typename V, typename I>
MachineModel calibrate_machine(MPI_Comm comm, const comm::Topology& topology, const Csr<V, I>& sample,
                               size_type k, Backend backend) {
    const int me = comm::rank_of(comm);
    MachineModel model;
    model.levels.assign(topology.num_levels(), LevelCost{});
    std::vector<double> params(2 * topology.num_levels(), -1.0);
    for (int l = 0; l < topology.num_levels(); ++l) {
        int peer = -1;
        for (int q = 1; q < topology.ranks() && peer < 0; ++q)
            if (topology.level_of(0, q) == l) peer = q;
        if (peer < 0) continue;
        TESSEL_MPI_CHECK(MPI_Barrier(comm));
        if (me == 0 || me == peer) {
            std::vector<char> small(8), big(1 << 20);
            ping_pong(comm, me, peer, small, 5);  // warm-up
            const double alpha = ping_pong(comm, me, peer, small, 200);
            const double t = ping_pong(comm, me, peer, big, 20);
            params[2 * l] = alpha;
            params[2 * l + 1] = std::max(1e-13, (t - alpha) / double(big.size()));
        }
    }
    TESSEL_MPI_CHECK(MPI_Bcast(params.data(), static_cast<int>(params.size()), MPI_DOUBLE, 0, comm));
    for (int l = 0; l < topology.num_levels(); ++l) {
        if (params[2 * l] >= 0) model.levels[l] = {params[2 * l], params[2 * l + 1]};
        else if (l > 0) model.levels[l] = model.levels[l - 1];
    }
    // Local rate with every rank busy at once, as in a real multiply.
    auto b = generate::random_dense<V>(sample.cols(), k, Layout::row_major, 3);
    DenseMatrix<V> c(sample.rows(), k);
    const Backend run = resolve_backend(backend);
    tessel::spmm<V, I>(sample, b.view(), c.view(), Epilogue<V>{}, run);
    TESSEL_MPI_CHECK(MPI_Barrier(comm));
    Timer timer;
    int reps = 0;
    do {
        tessel::spmm<V, I>(sample, b.view(), c.view(), Epilogue<V>{}, run);
        ++reps;
    } while (timer.seconds() < 0.05);
    double rate = double(std::max<size_type>(1, sample.nnz())) * double(k) * reps / timer.seconds();
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &rate, 1, MPI_DOUBLE, MPI_MIN, comm));
    model.spmm_rate = rate;
    return model;
}

namespace {

// The slowest rank's prediction: keep() every rank's, the largest total stays.
struct Slowest {
    CostPrediction worst;
    void keep(double compute, double comm, double total) {
        if (total > worst.total) worst = {compute, comm, total};
    }
};

// A grid variant's layout on the topology: cell (i, j) is rank i·c + j; the levels its grid
// rows and columns span.
struct GridCells {
    const dist::DistLayout& l;
    const comm::Topology& topology;
    const int r, c;

    GridCells(const dist::DistLayout& layout, const comm::Topology& t)
        : l(layout), topology(t), r(layout.grid_rows), c(layout.grid_cols) {}
    int cell(int i, int j) const { return i * c + j; }
    int row_level(int i) const {
        std::vector<int> m;
        for (int j = 0; j < c; ++j) m.push_back(cell(i, j));
        return topology.level_spanned(m);
    }
    int col_level(int j) const {
        std::vector<int> m;
        for (int i = 0; i < r; ++i) m.push_back(cell(i, j));
        return topology.level_spanned(m);
    }
};

// 1.5D: one stage; every rank gathers its coarse column block of B over its grid column and
// reduces its coarse row block of C over its grid row.
template <typename V, typename I>
CostPrediction predict_a15d(const Csr<V, I>& a, size_type k, const GridCells& g, const MachineModel& model) {
    const double sv = sizeof(V), rate = model.spmm_rate;
    const auto& ro = g.l.row_offsets;
    const auto& co = g.l.col_offsets;
    const int r = g.r, c = g.c;
    Slowest slowest;
    std::vector<size_type> coarse_r{0}, coarse_c{0};
    for (int i = 1; i <= r; ++i) coarse_r.push_back(ro[i * c]);
    for (int j = 1; j <= c; ++j) coarse_c.push_back(co[j * r]);
    const auto nnz = block_nnz(a, coarse_r, coarse_c);
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) {
            const double n_j = double(coarse_c[j + 1] - coarse_c[j]);
            const double m_i = double(coarse_r[i + 1] - coarse_r[i]);
            const double mine_b = double(co[j * r + i + 1] - co[j * r + i]);
            const double mine_c = double(ro[i * c + j + 1] - ro[i * c + j]);
            const auto lc = model.at(g.col_level(j)), lr = model.at(g.row_level(i));
            const double comm = log2_ceil(r) * lc.alpha + lc.beta * (n_j - mine_b) * k * sv +
                                log2_ceil(c) * lr.alpha + lr.beta * (m_i - mine_c) * k * sv;
            const double compute = double(nnz[i][j]) * k / rate;
            slowest.keep(compute, comm, compute + comm);
        }
    return slowest.worst;
}

// The staged grid variants (2D A-stationary and C-stationary, collective or one-sided): per
// rank, the sum over stages of its multiplies and messages; one-sided ones overlap the two
// and pay the first transfer.
template <typename V, typename I>
CostPrediction predict_staged_grid(DistAlgorithm algorithm, const Csr<V, I>& a, const GridCells& g,
                                   const MachineModel& model) {
    const double sv = sizeof(V), rate = model.spmm_rate;
    const auto& ro = g.l.row_offsets;
    const auto& co = g.l.col_offsets;
    const auto& ko = g.l.k_offsets;
    const int r = g.r, c = g.c;
    const comm::Topology& topology = g.topology;
    const int stages = (algorithm == DistAlgorithm::c2d || algorithm == DistAlgorithm::c2d_async)
                           ? static_cast<int>(co.size()) - 1
                           : static_cast<int>(ko.size()) - 1;
    const bool async = algorithm == DistAlgorithm::a2d_async || algorithm == DistAlgorithm::c2d_async;
    Slowest slowest;
    const auto nnz = block_nnz(a, ro, co);
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) {
            double compute = 0, comm = 0, first = 0;
            const auto lc = model.at(g.col_level(j)), lr = model.at(g.row_level(i));
            for (int s = 0; s < stages; ++s) {
                if (algorithm == DistAlgorithm::a2d || algorithm == DistAlgorithm::a2d_async) {
                    const double ks = double(ko[s + 1] - ko[s]);
                    const double bw = double(co[j + 1] - co[j]) * ks * sv;
                    const double cw = double(ro[i + 1] - ro[i]) * ks * sv;
                    compute += double(nnz[i][j]) * ks / rate;
                    if (algorithm == DistAlgorithm::a2d) {
                        comm += log2_ceil(r) * (lc.alpha + lc.beta * bw) + log2_ceil(c) * (lr.alpha + lr.beta * cw);
                    } else {
                        const double get = model.message(topology.level_of(g.cell(i, j), g.cell(s % r, j)), bw);
                        comm += get + model.message(topology.level_of(g.cell(i, j), g.cell(i, s % c)), cw);
                        if (s == (i + j) % stages) first = get;
                    }
                } else {
                    const double kj = double(ko[j + 1] - ko[j]);
                    const double aw = double(ro[i + 1] - ro[i] + 1) * 8 + double(nnz[i][s]) * (sizeof(I) + sv);
                    const double bw = double(co[s + 1] - co[s]) * kj * sv;
                    compute += double(nnz[i][s]) * kj / rate;
                    if (algorithm == DistAlgorithm::c2d) {
                        comm += log2_ceil(c) * (lr.alpha + lr.beta * aw) + log2_ceil(r) * (lc.alpha + lc.beta * bw);
                    } else {
                        const double get = model.message(topology.level_of(g.cell(i, j), g.cell(i, s % c)), aw) +
                                           model.message(topology.level_of(g.cell(i, j), g.cell(s % r, j)), bw);
                        comm += get;
                        if (s == (i + j) % stages) first = get;
                    }
                }
            }
            slowest.keep(compute, comm, async ? std::max(compute, comm) + first : compute + comm);
        }
    return slowest.worst;
}

// Sender-multiplies: per data rank, its multiplies on its footprint, and the messages of its
// reduction plan per minibatch (the last, global step overlapped with the next minibatch when
// pipelined).
template <typename V, typename I>
CostPrediction predict_sender_multiplies(DistAlgorithm algorithm, const Csr<V, I>& a, size_type k,
                                         const comm::Topology& topology, const MachineModel& model,
                                         const DistSetupOptions& options) {
    const double sv = sizeof(V), rate = model.spmm_rate;
    Slowest slowest;
    const auto s = sender_multiplies_setup(a, k, topology, options.p_batch,
                                           algorithm == DistAlgorithm::sm_hierarchical, 0);
    size_type k_b = 0;
    for (std::size_t b = 0; b + 1 < s.k_offsets.size(); ++b)
        k_b = std::max(k_b, s.k_offsets[b + 1] - s.k_offsets[b]);
    const size_type mb = dist::round_minibatch(options.run.minibatch, k_b);
    const double batches = double((k_b + mb - 1) / std::max<size_type>(mb, 1));
    for (int d = 0; d < s.grid.p_data; ++d) {
        size_type nnz = 0;
        for (size_type g : s.footprints[d])
            for (size_type e = a.row_ptr()[g]; e < a.row_ptr()[g + 1]; ++e)
                nnz += a.col_idx()[e] >= s.col_offsets[d] && a.col_idx()[e] < s.col_offsets[d + 1];
        const double compute = double(nnz) * double(k_b) / rate;
        double local = 0, global = 0;
        const auto& plan = s.plans[d];
        for (std::size_t st = 0; st < plan.steps.size(); ++st) {
            const auto& step = plan.steps[st];
            double t = 0;
            for (std::size_t q = 0; q < step.send_peers.size(); ++q) {
                const int level = s.group_topology.level_of(d, step.send_peers[q]);
                const double rows = double(step.send_displ[q + 1] - step.send_displ[q]);
                t += batches * model.at(level).alpha + model.at(level).beta * rows * double(k_b) * sv;
            }
            (st + 1 == plan.steps.size() ? global : local) += t;
        }
        const double busy = compute + local;
        const double total = options.run.pipelined
                                 ? std::max(busy, global) + std::min(busy, global) / batches
                                 : busy + global;
        slowest.keep(compute, local + global, total);
    }
    return slowest.worst;
}

}  // namespace

template <typename V, typename I>
CostPrediction predict_dist_spmm(DistAlgorithm algorithm, const Csr<V, I>& a, size_type k,
                                 const comm::Topology& topology, const MachineModel& model,
                                 const DistSetupOptions& options) {
    if (dist::uses_process_grid(algorithm)) {
        const auto layout = grid_layout(algorithm, a, k, topology.ranks());
        const GridCells g(layout, topology);
        if (algorithm == DistAlgorithm::a15d) return predict_a15d(a, k, g, model);
        return predict_staged_grid(algorithm, a, g, model);
    }
    if (algorithm != DistAlgorithm::sm_direct && algorithm != DistAlgorithm::sm_hierarchical)
        TESSEL_INVALID_INPUT("cost model", 0, "cannot predict " + std::string(dist::to_string(algorithm)));
    return predict_sender_multiplies(algorithm, a, k, topology, model, options);
}

template <typename V, typename I>
DistAlgorithm choose_dist_algorithm(const Csr<V, I>& a, size_type k, const comm::Topology& topology,
                                    const MachineModel& model, const DistSetupOptions& options,
                                    std::vector<DistAlgorithm> candidates) {
    if (candidates.empty()) candidates = dist::all_dist_algorithms();
    DistAlgorithm best = candidates.front();
    double best_time = -1;
    for (auto algorithm : candidates) {
        const double t = predict_dist_spmm(algorithm, a, k, topology, model, options).total;
        if (best_time < 0 || t < best_time) best = algorithm, best_time = t;
    }
    return best;
}

#define TESSEL_INSTANTIATE(V, I)                                                                \
    template MachineModel calibrate_machine(MPI_Comm, const comm::Topology&, const Csr<V, I>&,  \
                                            size_type, Backend);                                \
    template CostPrediction predict_dist_spmm(DistAlgorithm, const Csr<V, I>&, size_type,       \
                                              const comm::Topology&, const MachineModel&,       \
                                              const DistSetupOptions&);                         \
    template DistAlgorithm choose_dist_algorithm(const Csr<V, I>&, size_type,                   \
                                                 const comm::Topology&, const MachineModel&,    \
                                                 const DistSetupOptions&, std::vector<DistAlgorithm>);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::partition
