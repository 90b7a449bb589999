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

#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/executor/tile_exchange.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {

// One update of a C tile: (position of its A tile, slot of its B tile in the block).
using Update = std::pair<size_type, size_type>;

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

// The B slots of a block grouped by tile row k of B: [begin[k], end[k]). Kept for the whole
// run, set per block and cleared after it.
struct BRowIndex {
    std::vector<size_type> begin, end;

    explicit BRowIndex(size_type k_tiles)
        : begin(static_cast<std::size_t>(k_tiles), 0), end(static_cast<std::size_t>(k_tiles), 0) {}

    void set(const BlockPlan& bp, const TileShape& bs) {
        // b_tiles are sorted by position, hence grouped by tile row k of B.
        const std::size_t nb = bp.b_tiles.size();
        for (std::size_t s = 0; s < nb;) {
            const size_type k = bs.row_of(bp.b_tiles[s]);
            std::size_t e = s;
            while (e < nb && bs.row_of(bp.b_tiles[e]) == k) ++e;
            begin[k] = static_cast<size_type>(s);
            end[k] = static_cast<size_type>(e);
            s = e;
        }
    }

    void clear(const BlockPlan& bp, const TileShape& bs) {
        for (auto pos : bp.b_tiles) begin[bs.row_of(pos)] = end[bs.row_of(pos)] = 0;
    }
};

// A block's B tiles (made on demand by the first task that needs them) and C tiles (zeroed by
// the first task that touches them, so in parallel).
template <typename T>
struct BlockTiles {
    std::vector<TileBuffer<T>> b;
    std::unique_ptr<std::once_flag[]> made;
    std::vector<TileBuffer<T>> c;
    std::unique_ptr<std::once_flag[]> zeroed;

    explicit BlockTiles(const BlockPlan& bp)
        : b(bp.b_tiles.size()),
          made(new std::once_flag[bp.b_tiles.size()]),
          c(bp.c_tiles.size()),
          zeroed(new std::once_flag[bp.c_tiles.size()]) {}
};

// The updates of every C tile of the block in one chunk, and their cost in flops.
struct ChunkWork {
    std::vector<std::vector<Update>> updates;  // by C slot
    std::vector<double> cost;                  // by C slot
};

ChunkWork gather_updates(const Problem& p, const TileShape& cs, const BlockPlan& bp, const ChunkPlan& chunk,
                         const BRowIndex& rows) {
    const TileShape& as = p.a_shape;
    const TileShape& bs = p.b_shape;
    const std::size_t nc = bp.c_tiles.size();
    ChunkWork w{std::vector<std::vector<Update>>(nc), std::vector<double>(nc, 0.0)};
    for (auto apos : chunk.a_tiles) {
        const size_type i = as.row_of(apos), k = as.col_idx()[apos];
        for (size_type s = rows.begin[k]; s < rows.end[k]; ++s) {
            const size_type col = bs.col_idx()[bp.b_tiles[s]];
            const size_type cpos = cs.find(i, col);
            const auto cslot = static_cast<std::size_t>(
                std::lower_bound(bp.c_tiles.begin(), bp.c_tiles.end(), cpos) - bp.c_tiles.begin());
            w.updates[cslot].emplace_back(apos, s);
            w.cost[cslot] += 2.0 * double(p.m_tiling.size(i)) * double(p.k_tiling.size(k)) * double(p.n_tiling.size(col));
        }
    }
    return w;
}

// One task per C tile with updates, split by columns when it costs more than a quarter of a
// thread's share, so that every core stays busy.
std::vector<Task> make_tasks(const ChunkWork& w, const BlockPlan& bp, const TileShape& cs, const Tiling& nt,
                             int threads, size_type min_split_columns) {
    double chunk_cost = 0;
    for (auto x : w.cost) chunk_cost += x;
    const double target = chunk_cost / double(4 * threads);
    std::vector<Task> tasks;
    for (std::size_t s = 0; s < bp.c_tiles.size(); ++s) {
        if (w.updates[s].empty()) continue;
        const size_type n = nt.size(cs.col_idx()[bp.c_tiles[s]]);
        size_type pieces = 1;
        if (threads > 1 && w.cost[s] > target && target > 0)
            pieces = std::min<size_type>(static_cast<size_type>(std::ceil(w.cost[s] / target)),
                                         std::max<size_type>(1, n / min_split_columns));
        for (size_type q = 0; q < pieces; ++q) {
            // Piece boundaries on multiples of 8 columns where possible.
            size_type j0 = n * q / pieces, j1 = n * (q + 1) / pieces;
            if (pieces > 1) {
                j0 = q == 0 ? 0 : (j0 / 8) * 8;
                j1 = q + 1 == pieces ? n : (j1 / 8) * 8;
            }
            if (j1 > j0) tasks.push_back({static_cast<size_type>(s), j0, j1, w.cost[s] * double(j1 - j0) / double(n)});
        }
    }
    return tasks;
}

// Within a C tile, A tiles already here first; tasks that can run now first, then the rest,
// each group by decreasing cost (longest first balances best).
template <typename T>
void order_by_readiness(ChunkWork& w, std::vector<Task>& tasks, const TileExchange<T>& ex) {
    const std::size_t nc = w.updates.size();
    std::vector<char> now(nc, 1);
    for (std::size_t s = 0; s < nc; ++s) {
        std::stable_partition(w.updates[s].begin(), w.updates[s].end(), [&](const Update& u) { return ex.ready(u.first); });
        for (const auto& u : w.updates[s])
            if (!ex.ready(u.first)) now[s] = 0;
    }
    std::stable_sort(tasks.begin(), tasks.end(), [&](const Task& x, const Task& y) {
        if (now[x.c_slot] != now[y.c_slot]) return now[x.c_slot] > now[y.c_slot];
        return x.cost > y.cost;
    });
}

// One chunk's tasks as a dynamic list over the threads. A GEMM whose A tile is still on its
// way waits for that tile alone: the master thread drives MPI for it (MPI_THREAD_FUNNELED),
// the others wait for its flag; a failure in one task releases every waiting thread.
template <typename T>
class ChunkTasks {
public:
    ChunkTasks(const Problem& p, const TileShape& cs, const BlockPlan& bp, const ChunkWork& work,
               const std::vector<Task>& tasks, BlockTiles<T>& tiles, TileStore<T>& a, TileExchange<T>& ex, bool with_mpi)
        : p_(p), cs_(cs), bp_(bp), work_(work), tasks_(tasks), tiles_(tiles), a_(a), ex_(ex), with_mpi_(with_mpi) {}

    // Runs every task, adding to each thread's totals; rethrows the first failure.
    void run(std::vector<ThreadTotals>& totals) {
#pragma omp parallel
        {
            const int tid = omp_get_thread_num();
            ThreadTotals& mine = totals[static_cast<std::size_t>(tid)];
#pragma omp for schedule(dynamic, 1) nowait
            for (std::size_t t = 0; t < tasks_.size(); ++t) {
                try {
                    run_task(tasks_[t], tid, mine);
                } catch (...) {
                    record_failure();
                }
                tasks_done_.fetch_add(1, std::memory_order_acq_rel);
            }
            // Only the master thread may call MPI (MPI_THREAD_FUNNELED), and the others may
            // still wait for A tiles that only its progress brings in: out of tasks, it keeps
            // MPI moving until every task is done (or one failed), instead of waiting at the
            // barrier while they wait for it.
            if (tid == 0 && with_mpi_) {
                try {
                    keep_mpi_moving();
                } catch (...) {
                    record_failure();
                }
            }
        }
        if (failure_) std::rethrow_exception(failure_);
    }

private:
    void run_task(const Task& task, int tid, ThreadTotals& mine) {
        const Tiling& nt = p_.n_tiling;
        const size_type cpos = bp_.c_tiles[task.c_slot];
        const size_type m = p_.m_tiling.size(cs_.row_of(cpos));
        const size_type col = cs_.col_idx()[cpos];
        const size_type width = task.j1 - task.j0;
        std::call_once(tiles_.zeroed[task.c_slot],
                       [&] { tiles_.c[task.c_slot].assign(static_cast<std::size_t>(m * nt.size(col)), T(0)); });
        T* cdata = tiles_.c[task.c_slot].data() + task.j0 * m;
        for (const auto& [apos, bslot] : work_.updates[task.c_slot]) {
            if (!ex_.ready(apos)) wait_for_a(apos, tid, mine);
            const size_type k = p_.a_shape.col_idx()[apos];
            const size_type kk = p_.k_tiling.size(k);
            std::call_once(tiles_.made[bslot], [&] {
                Timer g;
                tiles_.b[bslot].resize(static_cast<std::size_t>(kk * nt.size(col)));
                p_.values->fill(Operand::b, k, col, tiles_.b[bslot].data());
                mine.b_seconds += g.seconds();
            });
            cpu::gemm(m, width, kk, T(1), a_[apos].data(), m, tiles_.b[bslot].data() + task.j0 * kk, kk, T(1), cdata, m);
            mine.flops += 2.0 * double(m) * double(width) * double(kk);
            if (task.j0 == 0) ++mine.gemms;
        }
        // The master thread (the one that initialised MPI) lets messages progress, at most
        // every half millisecond (testing a thousand requests after each of tens of thousands
        // of small GEMMs costs).
        if (tid == 0 && with_mpi_ && since_progress_.seconds() > 5e-4) {
            ex_.progress();
            since_progress_.restart();
        }
    }

    // The master thread drives MPI until the tile is here; the others wait for its flag.
    void wait_for_a(size_type apos, int tid, ThreadTotals& mine) {
        Timer w;
        if (tid == 0)
            ex_.wait_for({apos});
        else
            while (!ex_.ready(apos)) {
                if (abandoned_.load(std::memory_order_acquire)) TESSEL_THROW(MpiError, "abandoned: another thread failed");
                std::this_thread::sleep_for(std::chrono::microseconds(20));
            }
        mine.wait_seconds += w.seconds();
    }

    void keep_mpi_moving() {
        while (tasks_done_.load(std::memory_order_acquire) < tasks_.size() && !abandoned_.load(std::memory_order_acquire)) {
            ex_.progress();
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }

    void record_failure() {
        std::lock_guard<std::mutex> lock(failure_mutex_);
        if (!failure_) failure_ = std::current_exception();
        abandoned_.store(true, std::memory_order_release);  // nobody waits for A tiles any more
    }

    const Problem& p_;
    const TileShape& cs_;
    const BlockPlan& bp_;
    const ChunkWork& work_;
    const std::vector<Task>& tasks_;
    BlockTiles<T>& tiles_;
    TileStore<T>& a_;
    TileExchange<T>& ex_;
    const bool with_mpi_;
    std::exception_ptr failure_;
    std::mutex failure_mutex_;
    std::atomic<std::size_t> tasks_done_{0};
    std::atomic<bool> abandoned_{false};
    Timer since_progress_;
};

// The finished C tiles of a block handed to their owners.
template <typename T>
void deliver_block(const Problem& p, const TileShape& cs, const BlockPlan& bp, BlockTiles<T>& tiles,
                   TileExchange<T>& ex) {
    for (std::size_t s = 0; s < bp.c_tiles.size(); ++s) {
        const size_type pos = bp.c_tiles[s];
        if (tiles.c[s].empty())  // no update reached it (cannot happen for a tile of shape(C))
            tiles.c[s].assign(static_cast<std::size_t>(p.m_tiling.size(cs.row_of(pos)) * p.n_tiling.size(cs.col_idx()[pos])),
                              T(0));
        ex.deliver_c(pos, std::move(tiles.c[s]));
    }
    ex.progress();
}

// Everything this process does for its part of the plan, block by block, chunk by chunk.
template <typename T>
void run_blocks(const Problem& p, const Plan& plan, TileStore<T>& a, TileExchange<T>& ex, const ExecutorOptions& o,
                int threads, ExecutionResult& r) {
    const ProcessPlan& me = plan.processes[o.rank];
    const TileShape& cs = plan.product.c_shape;
    const bool with_mpi = o.comm != MPI_COMM_NULL;
    cpu::BlasThreads single(1);  // each task's GEMM on the core that runs the task
    std::vector<ThreadTotals> totals(static_cast<std::size_t>(threads));
    BRowIndex rows(p.k_tiling.count());
    r.h2d_bytes += me.a_upload_bytes;  // the plan's model: A once per device when it stays there
    for (const BlockPlan& bp : me.blocks) {
        BlockTiles<T> tiles(bp);
        rows.set(bp, p.b_shape);
        for (const ChunkPlan& chunk : bp.chunks) {
            if (!with_mpi) ex.wait_for(chunk.a_tiles);  // checks that every tile is local
            ex.progress();
            ChunkWork work = gather_updates(p, cs, bp, chunk, rows);
            std::vector<Task> tasks = make_tasks(work, bp, cs, p.n_tiling, threads, o.min_split_columns);
            order_by_readiness(work, tasks, ex);
            ChunkTasks<T>(p, cs, bp, work, tasks, tiles, a, ex, with_mpi).run(totals);
            ++r.chunks;
        }
        ++r.blocks;
        r.h2d_bytes += bp.b_bytes;
        r.d2h_bytes += bp.c_bytes;
        deliver_block(p, cs, bp, tiles, ex);
        rows.clear(bp, p.b_shape);
    }
    for (const auto& t : totals) {
        r.flops += t.flops;
        r.gemms += t.gemms;
        r.b_generation_seconds += t.b_seconds;
        r.a_wait_seconds = std::max(r.a_wait_seconds, t.wait_seconds);
    }
}

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
    if (o.rank < plan.grid.size()) run_blocks(p, plan, a, ex, o, threads, r);
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
