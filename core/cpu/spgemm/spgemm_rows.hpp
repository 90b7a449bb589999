// The pieces both phases of the cpu SpGEMM share (spgemm_symbolic_kernels.cpp,
// spgemm_numeric_kernels.cpp): row costs and flop-balanced row blocks, the parallel row loop
// with per-thread pooled accumulators, C's arrays, and the traversal of A's rows over B.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cpu/spgemm/spgemm_accumulators.hpp"
#include "core/cpu/spgemm/spgemm_compression.hpp"
#include "core/cpu/spgemm/spgemm_memory_pool.hpp"
#include "core/cpu/spgemm/spgemm_meta.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spgemm.hpp"
#include "core/kernels/spgemm_checks.hpp"

#include "core/cpu/isa_region.hpp"

// In the kernel region of the level being compiled (core/cpu/isa_region.hpp).
TESSEL_CPU_ISA_BEGIN
namespace spgemm_detail {

// x[0..n) := its inclusive prefix sums, in two parallel passes over long arrays; returns the
// largest x[i] it was given.
inline size_type inclusive_scan(size_type* x, size_type n, int threads) {
    if (n < (1 << 16) || threads == 1) {
        size_type largest = 0;
        for (size_type i = 0; i < n; ++i) {
            largest = std::max(largest, x[i]);
            if (i > 0) x[i] += x[i - 1];
        }
        return largest;
    }
    std::vector<size_type> offset(static_cast<std::size_t>(threads) + 1, 0);
    size_type largest = 0;
#pragma omp parallel num_threads(threads) reduction(max : largest)
    {
        const int t = omp_get_thread_num(), parts = omp_get_num_threads();
        const size_type begin = n * t / parts, end = n * (t + 1) / parts;
        size_type sum = 0;
        for (size_type i = begin; i < end; ++i) {
            sum += x[i];
            largest = std::max(largest, x[i]);
        }
        offset[t + 1] = sum;
#pragma omp barrier
#pragma omp single
        for (int u = 0; u < parts; ++u) offset[u + 1] += offset[u];
        size_type run = offset[t];
        for (size_type i = begin; i < end; ++i) x[i] = run += x[i];
    }
    return largest;
}

// Multiplications of A·B (and insertions once B is packed into bit sets): totals, row
// maxima, and the prefix sums of the row costs (flops plus a per-row overhead) that the
// row blocks are cut from.
struct RowFlops {
    size_type plain_total = 0, packed_total = 0, plain_max = 0, packed_max = 0;
    std::vector<size_type> cost_prefix;  // m + 1 entries
};

inline constexpr size_type row_overhead = 4;

template <typename V, typename I>
RowFlops count_row_flops(const Csr<V, I>& a, const Csr<V, I>& b,
                         const std::vector<size_type>* packed_lengths, int threads) {
    RowFlops r;
    const size_type m = a.rows();
    r.cost_prefix.resize(static_cast<std::size_t>(m) + 1);
    r.cost_prefix[0] = 0;
    size_type* cost = r.cost_prefix.data() + 1;
    const size_type* arp = a.row_ptr().data();
    const I* acol = a.col_idx().data();
    const size_type* brp = b.row_ptr().data();
    const size_type* plen = packed_lengths ? packed_lengths->data() : nullptr;
    const int parts = m < (1 << 14) ? 1 : threads;  // small matrices: no parallel region
    std::vector<size_type> offset(static_cast<std::size_t>(parts) + 1, 0);
    size_type pt = 0, qt = 0, pm = 0, qm = 0;
    // One region: each thread counts its rows and sums their costs, then, once every sum is
    // known, turns its rows into prefix sums.
#pragma omp parallel num_threads(parts) reduction(+ : pt, qt) reduction(max : pm, qm) if (parts > 1)
    {
        const int t = omp_get_thread_num(), used = omp_get_num_threads();
        const size_type begin = m * t / used, end = m * (t + 1) / used;
        size_type sum = 0;
        for (size_type i = begin; i < end; ++i) {
            size_type f = 0, q = 0;
            for (size_type e = arp[i]; e < arp[i + 1]; ++e) {
                const I j = acol[e];
                f += brp[j + 1] - brp[j];
                if (plen) q += plen[j];
            }
            cost[i] = f + row_overhead;
            sum += cost[i];
            pt += f;
            pm = std::max(pm, f);
            qt += q;
            qm = std::max(qm, q);
        }
        offset[t + 1] = sum;
#pragma omp barrier
#pragma omp single
        for (int u = 0; u < used; ++u) offset[u + 1] += offset[u];
        size_type run = offset[t];
        for (size_type i = begin; i < end; ++i) cost[i] = run += cost[i];
    }
    r.plain_total = pt;
    r.packed_total = qt;
    r.plain_max = pm;
    r.packed_max = qm;
    return r;
}

// Row blocks of about equal cost, several per thread so that dynamic scheduling evens out
// what the estimate misses (power-law rows).
inline std::vector<size_type> balanced_blocks(const std::vector<size_type>& prefix, int threads) {
    const size_type m = static_cast<size_type>(prefix.size()) - 1;
    const size_type blocks = std::max<size_type>(1, std::min<size_type>(m, 32 * threads));
    const size_type total = prefix[m];
    std::vector<size_type> bounds{0};
    for (size_type t = 1; t < blocks; ++t) {
        const size_type target = total / blocks * t + total % blocks * t / blocks;
        const size_type row = std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin();
        if (row > bounds.back() && row < m) bounds.push_back(row);
    }
    bounds.push_back(m);
    return bounds;
}

// Insertions of row i: the entries of the rows of B (or of its bit sets) that A's row names.
template <typename Ops>
inline size_type row_insertions(const Ops& op, size_type i) {
    size_type n = 0;
    for (size_type e = op.arp[i]; e < op.arp[i + 1]; ++e) n += op.brp[op.acol[e] + 1] - op.brp[op.acol[e]];
    return n;
}

// A pool chunk held for the life of a parallel region.
class PoolChunk {
public:
    PoolChunk(SpgemmMemoryPool& pool, size_type thread) : pool_(pool), p_(pool.acquire(thread)) {}
    PoolChunk(PoolChunk&& other) noexcept : pool_(other.pool_), p_(std::exchange(other.p_, nullptr)) {}
    ~PoolChunk() {
        if (p_) pool_.release(p_);
    }
    PoolChunk(const PoolChunk&) = delete;
    PoolChunk& operator=(const PoolChunk&) = delete;
    PoolChunk& operator=(PoolChunk&&) = delete;
    template <typename T>
    T* as() const {
        return static_cast<T*>(p_);
    }

private:
    SpgemmMemoryPool& pool_;
    void* p_;
};

// Runs row(state, i) for every row, blocks handed out dynamically; make_state(thread) builds
// a thread's accumulator once per region.
template <typename MakeState, typename Row>
void for_each_row(const std::vector<size_type>& blocks, int threads, MakeState&& make_state,
                  Row&& row) {
    const size_type nblocks = static_cast<size_type>(blocks.size()) - 1;
#pragma omp parallel num_threads(threads)
    {
        auto state = make_state(static_cast<size_type>(omp_get_thread_num()));
#pragma omp for schedule(dynamic, 1)
        for (size_type blk = 0; blk < nblocks; ++blk)
            for (size_type i = blocks[blk]; i < blocks[blk + 1]; ++i) row(*state, i);
    }
}

// Level-1 hash tables are kept empty between rows; a fresh chunk is emptied once.
template <typename Slot>
Slot* empty_slots(Slot* slots, size_type n) {
    for (size_type h = 0; h < n; ++h) slots[h].key = decltype(slots[h].key)(-1);
    return slots;
}

template <typename Table>
std::unique_ptr<SpgemmMemoryPool> l2_pool_for(size_type longest, size_type l1_slots, int threads,
                                              size_type& l2_slots) {
    l2_slots = 0;
    if (longest <= l1_slots / 2) return nullptr;
    l2_slots = next_pow2(2 * longest);
    return std::make_unique<SpgemmMemoryPool>(threads, l2_slots * sizeof(typename Table::Slot));
}

// Per-thread two-level hash tables of one kind: each thread's L1 table in its chunk of a pool
// and, when rows can be longer than half of it, an L2 pool (l2_pool_for).
template <typename Table>
struct HashPools {
    SpgemmMemoryPool l1;
    size_type l1_slots;
    size_type l2_slots = 0;
    std::unique_ptr<SpgemmMemoryPool> l2;

    HashPools(int threads, size_type slots, size_type longest)
        : l1(threads, slots * sizeof(typename Table::Slot)), l1_slots(slots),
          l2(l2_pool_for<Table>(longest, slots, threads, l2_slots)) {}

    /// Thread t's State{chunk, table, rest...}: the table on the chunk's emptied slots.
    template <typename State, typename... Rest>
    std::unique_ptr<State> state(size_type t, Rest&&... rest) {
        PoolChunk chunk(l1, t);
        auto* slots = empty_slots(chunk.as<typename Table::Slot>(), l1_slots);
        return std::unique_ptr<State>(new State{std::move(chunk), Table(slots, l1_slots, l2.get(), l2_slots, t),
                                                std::forward<Rest>(rest)...});
    }
};

// C's arrays. std::vector value-initialises in one thread, and for a large C most of that
// time is the kernel mapping fresh pages at their first touch: touch one byte per page of the
// reserved storage from every thread first, then resize() only zeroes pages already mapped.
template <typename T, typename U>
void output_arrays(std::vector<T>& first, std::vector<U>* second, size_type n, int threads) {
    first.reserve(static_cast<std::size_t>(n));
    if (second) second->reserve(static_cast<std::size_t>(n));
    const size_type bytes = n * size_type(sizeof(T)), bytes2 = second ? n * size_type(sizeof(U)) : 0;
    if (threads > 1 && bytes + bytes2 >= (size_type(1) << 24)) {
        auto* p = reinterpret_cast<unsigned char*>(first.data());
        auto* q = second ? reinterpret_cast<unsigned char*>(second->data()) : nullptr;
#pragma omp parallel num_threads(threads)
        {
#pragma omp for schedule(static) nowait
            for (size_type offset = 0; offset < bytes; offset += 4096) p[offset] = 0;
#pragma omp for schedule(static)
            for (size_type offset = 0; offset < bytes2; offset += 4096) q[offset] = 0;
        }
    }
    first.resize(static_cast<std::size_t>(n));
    if (second) second->resize(static_cast<std::size_t>(n));
}

// Sorts a row's (column, value) pairs by column.
template <typename I, typename V>
void sort_row(I* col, V* val, size_type n, std::vector<std::pair<I, V>>& buffer) {
    if (n <= 32) {
        for (size_type s = 1; s < n; ++s) {
            const I c = col[s];
            const V v = val[s];
            size_type t = s;
            for (; t > 0 && col[t - 1] > c; --t) {
                col[t] = col[t - 1];
                val[t] = val[t - 1];
            }
            col[t] = c;
            val[t] = v;
        }
        return;
    }
    buffer.resize(static_cast<std::size_t>(n));
    for (size_type t = 0; t < n; ++t) buffer[t] = {col[t], val[t]};
    std::sort(buffer.begin(), buffer.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_type t = 0; t < n; ++t) {
        col[t] = buffer[t].first;
        val[t] = buffer[t].second;
    }
}

// ---- row traversal ---------------------------------------------------------------------

// Raw pointers of A and B (or of B's bit sets), copied by value into the row kernels so that
// they stay in registers.
template <bool Prefetch, typename V, typename I, typename BIndex = I, typename BValue = V>
struct Operands {
    static constexpr bool prefetch = Prefetch;  // prefetch rows of B ahead (see below)
    const size_type* arp;
    const I* acol;
    const V* aval;
    size_type a_nnz;
    const size_type* brp;
    const BIndex* bcol;
    const BValue* bval;
};

template <bool Prefetch, typename V, typename I>
Operands<Prefetch, V, I> operands(const Csr<V, I>& a, const Csr<V, I>& b) {
    return {a.row_ptr().data(), a.col_idx().data(), a.values().data(), a.nnz(),
            b.row_ptr().data(), b.col_idx().data(), b.values().data()};
}

// Rows of B are read in the order A's columns name them. Where they are far apart (random,
// power-law, graph matrices) each one is a cache miss: prefetch the row that A's entry
// `distance` places ahead will need (A's entries run on across its rows, so this also
// covers the start of the next row). Where they are close to the row itself (banded and mesh
// matrices) the hardware prefetcher streams them in and software prefetch only costs.
inline constexpr size_type prefetch_distance = 4;

// True when A's rows name rows of B spread over more than an L2 cache's worth of B: the mean
// distance, on a sample of rows, between the row of B named and the one "on the diagonal".
template <typename V, typename I>
bool scattered_b_rows(const Csr<V, I>& a, const Csr<V, I>& b) {
    const size_type m = a.rows();
    if (m == 0 || a.nnz() == 0) return false;
    const size_type step = std::max<size_type>(1, m / 4096);
    double distance = 0, entries = 0;
    for (size_type i = 0; i < m; i += step) {
        const double diagonal = double(i) * double(b.rows()) / double(m);
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e)
            distance += std::abs(double(a.col_idx()[e]) - diagonal);
        entries += double(a.row_nnz(i));
    }
    const double row_bytes =
        double(sizeof(size_type)) + b.average_row_length() * double(sizeof(I) + sizeof(V));
    return entries > 0 && distance / entries * row_bytes > double(1 << 20);
}

// Calls f(begin, end, a_value) with the entry range of B's row j for every entry A(i, j).
template <typename Ops, typename F>
[[gnu::always_inline]] inline void for_each_b_row(const Ops& op, size_type i, F&& f) {
    const size_type end = op.arp[i + 1];
    for (size_type e = op.arp[i]; e < end; ++e) {
        if constexpr (Ops::prefetch) {
            if (e + 2 * prefetch_distance < op.a_nnz)
                __builtin_prefetch(op.brp + op.acol[e + 2 * prefetch_distance]);
            if (e + prefetch_distance < op.a_nnz) {
                const size_type ahead = op.brp[op.acol[e + prefetch_distance]];
                __builtin_prefetch(op.bcol + ahead);
                __builtin_prefetch(op.bval + ahead);
            }
        }
        const auto j = op.acol[e];
        f(op.brp[j], op.brp[j + 1], op.aval[e]);
    }
}

}  // namespace spgemm_detail
TESSEL_CPU_ISA_END
