// The cpu executor: per block, B tiles made on demand (once, by the first task that needs
// them) and C tiles zeroed; per chunk, the tile GEMMs grouped by C tile, split by columns when
// there are too few to keep every core busy, and run as a dynamic task list over the cores.
// Tasks whose A tiles are here run first; a GEMM whose A tile is still on its way waits for
// that tile alone (the master thread drives MPI meanwhile, the others wait for its flag), so
// computation starts at once and overlaps the arrival of A. The master thread, out of tasks,
// drives MPI until the others are done: no thread waits on work only another thread can do.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "apps/ccsd_abcd/executor.hpp"
#include "apps/ccsd_abcd/tile_exchange.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {

// One unit of work: columns [j0, j1) of C tile `c_slot`, all of its updates in this chunk.
struct Task {
    size_type c_slot = 0;
    size_type j0 = 0, j1 = 0;
    double cost = 0;
};

struct alignas(64) ThreadTotals {
    double flops = 0;
    size_type gemms = 0;
    double b_seconds = 0;
    double wait_seconds = 0;
};

}  // namespace

template <typename T>
ExecutionResult execute_cpu(const Problem& p, const Plan& plan, TileStore<T>& a, TileStore<T>& c_owned,
                            const ExecutorOptions& o) {
    Timer total;
    ExecutionResult r;
    const int threads = std::max(1, omp_get_max_threads());
    r.backend = std::string("cpu: ") + cpu::blas_library() + " " + (std::is_same_v<T, double> ? "dgemm" : "sgemm") +
                " tile GEMMs as dynamic tasks over " + std::to_string(threads) + " thread(s)";
    TileExchange<T> ex(p, plan, o.rank, o.comm, a, c_owned);
    ex.start();
    const bool with_mpi = o.comm != MPI_COMM_NULL;
    if (o.rank < plan.grid.size()) {
        const ProcessPlan& me = plan.processes[o.rank];
        const TileShape& as = p.a_shape;
        const TileShape& bs = p.b_shape;
        const TileShape& cs = plan.product.c_shape;
        const Tiling& mt = p.m_tiling;
        const Tiling& kt = p.k_tiling;
        const Tiling& nt = p.n_tiling;
        cpu::BlasThreads single(1);  // each task's GEMM on the core that runs the task
        std::vector<ThreadTotals> totals(static_cast<std::size_t>(threads));
        std::vector<size_type> k_begin(static_cast<std::size_t>(kt.count()), 0), k_end(static_cast<std::size_t>(kt.count()), 0);
        for (const BlockPlan& bp : me.blocks) {
            const std::size_t nb = bp.b_tiles.size(), nc = bp.c_tiles.size();
            std::vector<TileBuffer<T>> b(nb);
            std::unique_ptr<std::once_flag[]> made(new std::once_flag[nb]);
            // C tiles are zeroed by the first task that touches them, so in parallel.
            std::vector<TileBuffer<T>> c(nc);
            std::unique_ptr<std::once_flag[]> zeroed(new std::once_flag[nc]);
            // b_tiles are sorted by position, hence grouped by tile row k of B.
            for (std::size_t s = 0; s < nb;) {
                const size_type k = bs.row_of(bp.b_tiles[s]);
                std::size_t e = s;
                while (e < nb && bs.row_of(bp.b_tiles[e]) == k) ++e;
                k_begin[k] = static_cast<size_type>(s);
                k_end[k] = static_cast<size_type>(e);
                s = e;
            }
            for (const ChunkPlan& chunk : bp.chunks) {
                if (!with_mpi) ex.wait_for(chunk.a_tiles);  // checks that every tile is local
                ex.progress();
                // The updates of every C tile in this chunk: (A position, B slot).
                std::vector<std::vector<std::pair<size_type, size_type>>> work(nc);
                std::vector<double> cost(nc, 0.0);
                for (auto apos : chunk.a_tiles) {
                    const size_type i = as.row_of(apos), k = as.col_idx()[apos];
                    for (size_type s = k_begin[k]; s < k_end[k]; ++s) {
                        const size_type col = bs.col_idx()[bp.b_tiles[s]];
                        const size_type cpos = cs.find(i, col);
                        const auto cslot = static_cast<std::size_t>(
                            std::lower_bound(bp.c_tiles.begin(), bp.c_tiles.end(), cpos) - bp.c_tiles.begin());
                        work[cslot].emplace_back(apos, s);
                        cost[cslot] += 2.0 * double(mt.size(i)) * double(kt.size(k)) * double(nt.size(col));
                    }
                }
                double chunk_cost = 0;
                for (auto x : cost) chunk_cost += x;
                const double target = chunk_cost / double(4 * threads);
                std::vector<Task> tasks;
                for (std::size_t s = 0; s < nc; ++s) {
                    if (work[s].empty()) continue;
                    const size_type n = nt.size(cs.col_idx()[bp.c_tiles[s]]);
                    size_type pieces = 1;
                    if (threads > 1 && cost[s] > target && target > 0)
                        pieces = std::min<size_type>(static_cast<size_type>(std::ceil(cost[s] / target)),
                                                     std::max<size_type>(1, n / o.min_split_columns));
                    for (size_type q = 0; q < pieces; ++q) {
                        // Piece boundaries on multiples of 8 columns where possible.
                        size_type j0 = n * q / pieces, j1 = n * (q + 1) / pieces;
                        if (pieces > 1) {
                            j0 = q == 0 ? 0 : (j0 / 8) * 8;
                            j1 = q + 1 == pieces ? n : (j1 / 8) * 8;
                        }
                        if (j1 > j0) tasks.push_back({static_cast<size_type>(s), j0, j1, cost[s] * double(j1 - j0) / double(n)});
                    }
                }
                // Within a C tile, A tiles already here first; tasks that can run now first,
                // then the rest, each group by decreasing cost (longest first balances best).
                std::vector<char> now(nc, 1);
                for (std::size_t s = 0; s < nc; ++s) {
                    std::stable_partition(work[s].begin(), work[s].end(),
                                          [&](const std::pair<size_type, size_type>& u) { return ex.ready(u.first); });
                    for (const auto& u : work[s])
                        if (!ex.ready(u.first)) now[s] = 0;
                }
                std::stable_sort(tasks.begin(), tasks.end(), [&](const Task& x, const Task& y) {
                    if (now[x.c_slot] != now[y.c_slot]) return now[x.c_slot] > now[y.c_slot];
                    return x.cost > y.cost;
                });
                std::exception_ptr failure;
                std::mutex failure_mutex;
                std::atomic<std::size_t> tasks_done{0};
                std::atomic<bool> abandoned{false};  // a task failed: nobody waits for A tiles any more
                auto record_failure = [&] {
                    std::lock_guard<std::mutex> lock(failure_mutex);
                    if (!failure) failure = std::current_exception();
                    abandoned.store(true, std::memory_order_release);
                };
                Timer since_progress;
#pragma omp parallel
                {
                    const int tid = omp_get_thread_num();
                    ThreadTotals& mine = totals[static_cast<std::size_t>(tid)];
#pragma omp for schedule(dynamic, 1) nowait
                    for (std::size_t t = 0; t < tasks.size(); ++t) {
                        try {
                            const Task& task = tasks[t];
                            const size_type cpos = bp.c_tiles[task.c_slot];
                            const size_type m = mt.size(cs.row_of(cpos));
                            const size_type col = cs.col_idx()[cpos];
                            const size_type width = task.j1 - task.j0;
                            std::call_once(zeroed[task.c_slot], [&] {
                                c[task.c_slot].assign(static_cast<std::size_t>(m * nt.size(col)), T(0));
                            });
                            T* cdata = c[task.c_slot].data() + task.j0 * m;
                            for (const auto& [apos, bslot] : work[task.c_slot]) {
                                if (!ex.ready(apos)) {
                                    Timer w;
                                    if (tid == 0)
                                        ex.wait_for({apos});
                                    else
                                        while (!ex.ready(apos)) {
                                            if (abandoned.load(std::memory_order_acquire))
                                                TESSEL_THROW(MpiError, "abandoned: another thread failed");
                                            std::this_thread::sleep_for(std::chrono::microseconds(20));
                                        }
                                    mine.wait_seconds += w.seconds();
                                }
                                const size_type k = as.col_idx()[apos];
                                const size_type kk = kt.size(k);
                                std::call_once(made[bslot], [&] {
                                    Timer g;
                                    b[bslot].resize(static_cast<std::size_t>(kk * nt.size(col)));
                                    p.values->fill(Operand::b, k, col, b[bslot].data());
                                    mine.b_seconds += g.seconds();
                                });
                                cpu::gemm(m, width, kk, T(1), a[apos].data(), m, b[bslot].data() + task.j0 * kk, kk, T(1),
                                                cdata, m);
                                mine.flops += 2.0 * double(m) * double(width) * double(kk);
                                if (task.j0 == 0) ++mine.gemms;
                            }
                            // The master thread (the one that initialised MPI) lets messages
                            // progress, at most every half millisecond (testing a thousand
                            // requests after each of tens of thousands of small GEMMs costs).
                            if (tid == 0 && with_mpi && since_progress.seconds() > 5e-4) {
                                ex.progress();
                                since_progress.restart();
                            }
                        } catch (...) {
                            record_failure();
                        }
                        tasks_done.fetch_add(1, std::memory_order_acq_rel);
                    }
                    // Only the master thread may call MPI (MPI_THREAD_FUNNELED), and the others
                    // may still wait for A tiles that only its progress brings in: out of tasks,
                    // it keeps MPI moving until every task is done (or one failed), instead of
                    // waiting at the barrier while they wait for it.
                    if (tid == 0 && with_mpi) {
                        try {
                            while (tasks_done.load(std::memory_order_acquire) < tasks.size() &&
                                   !abandoned.load(std::memory_order_acquire)) {
                                ex.progress();
                                std::this_thread::sleep_for(std::chrono::microseconds(20));
                            }
                        } catch (...) {
                            record_failure();
                        }
                    }
                }
                if (failure) std::rethrow_exception(failure);
                ++r.chunks;
                r.h2d_bytes += chunk.bytes;
            }
            ++r.blocks;
            r.h2d_bytes += bp.b_bytes;
            r.d2h_bytes += bp.c_bytes;
            for (std::size_t s = 0; s < nc; ++s) {
                const size_type pos = bp.c_tiles[s];
                if (c[s].empty())  // no update reached it (cannot happen for a tile of shape(C))
                    c[s].assign(static_cast<std::size_t>(mt.size(cs.row_of(pos)) * nt.size(cs.col_idx()[pos])), T(0));
                ex.deliver_c(pos, std::move(c[s]));
            }
            ex.progress();
            for (auto pos : bp.b_tiles) k_begin[bs.row_of(pos)] = k_end[bs.row_of(pos)] = 0;
        }
        for (const auto& t : totals) {
            r.flops += t.flops;
            r.gemms += t.gemms;
            r.b_generation_seconds += t.b_seconds;
            r.a_wait_seconds = std::max(r.a_wait_seconds, t.wait_seconds);
        }
    }
    ex.finish();
    const auto& cnt = ex.counters();
    r.a_sent_bytes = cnt.a_sent();
    r.a_received_bytes = cnt.a_received();
    r.c_sent_bytes = cnt.c_sent();
    r.c_received_bytes = cnt.c_received();
    r.a_wait_seconds = std::max(r.a_wait_seconds, cnt.wait_seconds);
    r.seconds = total.seconds();
    return r;
}

template ExecutionResult execute_cpu<double>(const Problem&, const Plan&, TileStore<double>&, TileStore<double>&,
                                             const ExecutorOptions&);
template ExecutionResult execute_cpu<float>(const Problem&, const Plan&, TileStore<float>&, TileStore<float>&,
                                            const ExecutorOptions&);

}  // namespace tessel::abcd
