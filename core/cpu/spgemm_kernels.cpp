// OpenMP SpGEMM, Gustavson's row-wise algorithm in two phases (Deveci et al. 2018): the
// symbolic phase sizes the rows of C (on B packed into bit sets when that pays), the numeric
// phase fills them; both run over flop-balanced row blocks with dynamic scheduling and
// per-thread accumulators taken from memory pools, with no allocation inside the row loops.
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

#include "core/cpu/spgemm_accumulators.hpp"
#include "core/cpu/spgemm_compression.hpp"
#include "core/cpu/spgemm_memory_pool.hpp"
#include "core/cpu/spgemm_meta.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spgemm.hpp"

namespace tessel::cpu {

namespace {

using spgemm_detail::DenseBitsets;
using spgemm_detail::DenseMarker;
using spgemm_detail::NoPayload;
using spgemm_detail::TwoLevelHash;

template <typename V, typename I>
void check_operands(const Csr<V, I>& a, const Csr<V, I>& b, const char* what) {
    TESSEL_ENSURE_DIMS(a.cols() == b.rows(), std::string(what) + ": A is " +
                                                 std::to_string(a.rows()) + "x" +
                                                 std::to_string(a.cols()) + ", B is " +
                                                 std::to_string(b.rows()) + "x" +
                                                 std::to_string(b.cols()));
}

template <typename V, typename I>
void check_plan(const SpgemmPlan& plan, const Csr<V, I>& a, const Csr<V, I>& b, const char* what) {
    check_operands(a, b, what);
    if (plan.rows != a.rows() || plan.inner != a.cols() || plan.cols != b.cols() ||
        plan.a_nnz != a.nnz() || plan.b_nnz != b.nnz() ||
        static_cast<size_type>(plan.row_ptr.size()) != plan.rows + 1)
        TESSEL_INVALID_INPUT(std::string(what), 0,
                             "the plan was made for other operands (plan: " +
                                 std::to_string(plan.rows) + "x" + std::to_string(plan.inner) +
                                 " times " + std::to_string(plan.inner) + "x" +
                                 std::to_string(plan.cols) + ", nnz " + std::to_string(plan.a_nnz) +
                                 " and " + std::to_string(plan.b_nnz) + ")");
}

// x[0..n) := its inclusive prefix sums, in two parallel passes over long arrays; returns the
// largest x[i] it was given.
size_type inclusive_scan(size_type* x, size_type n, int threads) {
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
std::vector<size_type> balanced_blocks(const std::vector<size_type>& prefix, int threads) {
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

// ---- symbolic phase --------------------------------------------------------------------

// What a symbolic pass needs besides A and B.
template <typename I>
struct SymbolicInput {
    const BitsetRows<I>* packed = nullptr;  // B as bit sets, or nullptr
    size_type longest = 0;                          // largest bound, capped by the sets/cols
    SpgemmAccumulator accumulator = SpgemmAccumulator::hash;
    size_type l1_slots = spgemm_hash_l1_slots;
    std::vector<size_type> blocks;
    int threads = 1;
    bool prefetch = false;
};

// Writes the columns of a packed word (a set of 32 columns) at dst.
template <typename I>
[[gnu::always_inline]] inline void expand_word(I set, std::uint32_t bits, I* dst) {
    size_type n = 0;
    while (bits) {
        dst[n++] = static_cast<I>(set * 32 + std::countr_zero(bits));
        bits &= bits - 1;
    }
}

// Symbolic rows on B itself, a dense marker of k columns per thread.
template <bool Fill, typename Op, typename I, typename Finish>
void symbolic_plain_dense(const Op& op, const SymbolicInput<I>& in, size_type k, I* out, const size_type* row_ptr,
                          const Finish& finish) {
    using V = std::remove_cv_t<std::remove_pointer_t<decltype(op.aval)>>;
    SpgemmMemoryPool pool(in.threads, k * sizeof(std::uint32_t));
    struct State {
        PoolChunk chunk;
        DenseMarker marker;
    };
    for_each_row(
        in.blocks, in.threads,
        [&](size_type t) {
            PoolChunk chunk(pool, t);
            DenseMarker marker(chunk.as<std::uint32_t>(), k);
            return std::unique_ptr<State>(new State{std::move(chunk), marker});
        },
        [op, out, row_ptr, &finish](State& s, size_type i) {
            s.marker.begin_row();
            I* dst = Fill ? out + row_ptr[i] : nullptr;
            size_type n = 0;
            const I* bcol = op.bcol;
            for_each_b_row(op, i, [&](size_type fb, size_type fe, V) {
                for (size_type f = fb; f < fe; ++f) {
                    const I c = bcol[f];
                    if (s.marker.insert(c)) {
                        if constexpr (Fill) dst[n] = c;
                        ++n;
                    }
                }
            });
            finish(i, n);
        });
}

// Symbolic rows on B itself, a two-level hash table of columns per thread.
template <bool Fill, typename Op, typename I, typename Finish>
void symbolic_plain_hash(const Op& op, const SymbolicInput<I>& in, size_type k, I* out, const size_type* row_ptr,
                         const Finish& finish) {
    using V = std::remove_cv_t<std::remove_pointer_t<decltype(op.aval)>>;
    using Table = TwoLevelHash<I, NoPayload>;
    HashPools<Table> pools(in.threads, in.l1_slots, in.longest);
    struct State {
        PoolChunk chunk;
        Table table;
    };
    for_each_row(
        in.blocks, in.threads, [&](size_type t) { return pools.template state<State>(t); },
        [op, out, row_ptr, k, &finish](State& s, size_type i) {
            s.table.begin_row(std::min(row_insertions(op, i), k));
            I* dst = Fill ? out + row_ptr[i] : nullptr;
            size_type n = 0;
            const I* bcol = op.bcol;
            for_each_b_row(op, i, [&](size_type fb, size_type fe, V) {
                for (size_type f = fb; f < fe; ++f) {
                    bool fresh;
                    s.table.insert(bcol[f], fresh);
                    if (fresh) {
                        if constexpr (Fill) dst[n] = bcol[f];
                        ++n;
                    }
                }
            });
            s.table.end_row();
            finish(i, n);
        });
}

// Symbolic rows on B packed into bit sets, a dense array of words per thread.
template <bool Fill, typename Op, typename I, typename Finish>
void symbolic_packed_dense(const Op& op, const SymbolicInput<I>& in, size_type sets, I* out,
                           const size_type* row_ptr, const Finish& finish) {
    using V = std::remove_cv_t<std::remove_pointer_t<decltype(op.aval)>>;
    const size_type touched = std::max<size_type>(1, std::min(in.longest, sets));
    const size_type words_bytes = (sets * 4 + 63) / 64 * 64;
    SpgemmMemoryPool pool(in.threads, words_bytes + touched * sizeof(I));
    struct State {
        PoolChunk chunk;
        DenseBitsets<I> sets;
    };
    for_each_row(
        in.blocks, in.threads,
        [&](size_type t) {
            PoolChunk chunk(pool, t);
            auto* base = chunk.as<std::byte>();
            DenseBitsets<I> bits(reinterpret_cast<std::uint32_t*>(base),
                                 reinterpret_cast<I*>(base + words_bytes), sets);
            return std::unique_ptr<State>(new State{std::move(chunk), bits});
        },
        [op, out, row_ptr, &finish](State& s, size_type i) {
            const I* pset = op.bcol;
            const std::uint32_t* pbits = op.bval;
            for_each_b_row(op, i, [&](size_type fb, size_type fe, V) {
                for (size_type f = fb; f < fe; ++f) s.sets.insert(pset[f], pbits[f]);
            });
            I* dst = Fill ? out + row_ptr[i] : nullptr;
            size_type n = 0;
            s.sets.drain([&](I set, std::uint32_t bits) {
                if constexpr (Fill) expand_word(set, bits, dst + n);
                n += std::popcount(bits);
            });
            finish(i, n);
        });
}

// Symbolic rows on B packed into bit sets, a two-level hash table of words per thread.
template <bool Fill, typename Op, typename I, typename Finish>
void symbolic_packed_hash(const Op& op, const SymbolicInput<I>& in, size_type sets, I* out,
                          const size_type* row_ptr, const Finish& finish) {
    using V = std::remove_cv_t<std::remove_pointer_t<decltype(op.aval)>>;
    using Table = TwoLevelHash<I, std::uint32_t>;
    HashPools<Table> pools(in.threads, in.l1_slots, in.longest);
    struct State {
        PoolChunk chunk;
        Table table;
    };
    for_each_row(
        in.blocks, in.threads, [&](size_type t) { return pools.template state<State>(t); },
        [op, out, row_ptr, sets, &finish](State& s, size_type i) {
            s.table.begin_row(std::min(row_insertions(op, i), sets));
            const I* pset = op.bcol;
            const std::uint32_t* pbits = op.bval;
            for_each_b_row(op, i, [&](size_type fb, size_type fe, V) {
                for (size_type f = fb; f < fe; ++f) {
                    bool fresh;
                    auto* slot = s.table.insert(pset[f], fresh);
                    slot->value = fresh ? pbits[f] : slot->value | pbits[f];
                }
            });
            I* dst = Fill ? out + row_ptr[i] : nullptr;
            size_type n = 0;
            s.table.for_each([&](I set, std::uint32_t bits) {
                if constexpr (Fill) expand_word(set, bits, dst + n);
                n += std::popcount(bits);
            });
            s.table.end_row();
            finish(i, n);
        });
}

// One symbolic pass: the size of every row into count[i], and with Fill its columns into
// out + row_ptr[i] (the boolean product), on B or its bit sets, with the chosen accumulator.
template <bool Fill, bool Prefetch, typename V, typename I>
void symbolic_pass(const Csr<V, I>& a, const Csr<V, I>& b, const SymbolicInput<I>& in,
                   size_type* count, I* out, const size_type* row_ptr, bool sort) {
    auto finish = [count, out, row_ptr, sort](size_type i, size_type n) {
        count[i] = n;
        if constexpr (Fill)
            if (sort) std::sort(out + row_ptr[i], out + row_ptr[i] + n);
    };
    const bool dense = in.accumulator == SpgemmAccumulator::dense;
    if (in.packed == nullptr) {
        const Operands<Prefetch, V, I> op = operands<Prefetch>(a, b);
        if (dense)
            symbolic_plain_dense<Fill>(op, in, b.cols(), out, row_ptr, finish);
        else
            symbolic_plain_hash<Fill>(op, in, b.cols(), out, row_ptr, finish);
        return;
    }
    const BitsetRows<I>& p = *in.packed;
    const Operands<Prefetch, V, I, I, std::uint32_t> op{a.row_ptr().data(), a.col_idx().data(),
                                                        a.values().data(),  a.nnz(),
                                                        p.row_ptr.data(),   p.set.data(),
                                                        p.bits.data()};
    if (dense)
        symbolic_packed_dense<Fill>(op, in, p.sets, out, row_ptr, finish);
    else
        symbolic_packed_hash<Fill>(op, in, p.sets, out, row_ptr, finish);
}

// The symbolic phase, and with `fill` the columns of the boolean product as well.
template <typename V, typename I>
SpgemmPlan symbolic(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options,
                    std::vector<I>* fill) {
    check_operands(a, b, "cpu::spgemm_symbolic");
    if (options.hash_l1_slots < 16 || !std::has_single_bit(std::uint64_t(options.hash_l1_slots)))
        TESSEL_INVALID_INPUT("SpgemmOptions", 0,
                             "hash_l1_slots must be a power of two >= 16, not " +
                                 std::to_string(options.hash_l1_slots));
    const int threads = std::max(1, omp_get_max_threads());
    const size_type m = a.rows(), k = b.cols(), sets = (k + 31) / 32;
    SpgemmPlan plan;
    plan.backend = Backend::cpu;
    plan.rows = m;
    plan.inner = a.cols();
    plan.cols = k;
    plan.a_nnz = a.nnz();
    plan.b_nnz = b.nnz();
    plan.sort_columns = options.sort_columns;

    // Compression, first phase: the packed row lengths of B, enough to apply the 0.85 rule.
    const bool consider = options.compression != SpgemmCompression::never && m > 0 && b.nnz() > 0;
    std::vector<size_type> packed_lengths;
    if (consider) packed_lengths = bitset_row_lengths(b);
    RowFlops flops = count_row_flops(a, b, consider ? &packed_lengths : nullptr, threads);
    plan.flops = flops.plain_total;
    plan.max_row_flops = flops.plain_max;
    plan.compression_ratio =
        consider && flops.plain_total > 0 ? double(flops.packed_total) / double(flops.plain_total) : 1.0;
    plan.compressed = consider && (options.compression == SpgemmCompression::always ||
                                   compression_pays(flops.plain_total, flops.packed_total,
                                                    b.nnz(), options.compression_threshold));
    // Compression, second phase: only when it pays.
    BitsetRows<I> packed;
    if (plan.compressed) packed = compress_rows(b, packed_lengths);

    SymbolicInput<I> in;
    in.packed = plan.compressed ? &packed : nullptr;
    in.longest = plan.compressed ? std::min(flops.packed_max, sets) : std::min(flops.plain_max, k);
    in.l1_slots = options.hash_l1_slots;
    in.threads = threads;
    in.blocks = balanced_blocks(flops.cost_prefix, threads);
    in.prefetch = plan.prefetch_b_rows = scattered_b_rows(a, b);
    flops.cost_prefix = {};
    const auto sym = choose_spgemm_accumulator(
        plan.compressed ? SpgemmPhaseShape{sets, in.longest, 4 + size_type(sizeof(I)), size_type(sizeof(I)) + 4}
                        : SpgemmPhaseShape{k, in.longest, 4, size_type(sizeof(I))},
        options);
    in.accumulator = sym.accumulator;

    plan.row_ptr.assign(static_cast<std::size_t>(m) + 1, 0);
    if (in.prefetch)
        symbolic_pass<false, true>(a, b, in, plan.row_ptr.data() + 1, static_cast<I*>(nullptr),
                                   nullptr, false);
    else
        symbolic_pass<false, false>(a, b, in, plan.row_ptr.data() + 1, static_cast<I*>(nullptr),
                                    nullptr, false);
    const size_type longest = inclusive_scan(plan.row_ptr.data() + 1, m, threads);
    plan.max_row_nnz = longest;

    if (fill) {  // the boolean product: the same pass again, writing the columns
        output_arrays<I, V>(*fill, nullptr, plan.nnz(), threads);
        std::vector<size_type> check(static_cast<std::size_t>(m));
        if (in.prefetch)
            symbolic_pass<true, true>(a, b, in, check.data(), fill->data(), plan.row_ptr.data(),
                                      options.sort_columns);
        else
            symbolic_pass<true, false>(a, b, in, check.data(), fill->data(), plan.row_ptr.data(),
                                       options.sort_columns);
    }

    // The numeric phase's accumulator, now with the exact longest row.
    const auto num = choose_spgemm_accumulator(
        SpgemmPhaseShape{k, longest, size_type(sizeof(I)), 2 * size_type(sizeof(I))}, options);
    plan.symbolic_accumulator = sym.accumulator;
    plan.numeric_accumulator = num.accumulator;
    plan.row_blocks = std::move(in.blocks);
    if (num.accumulator == SpgemmAccumulator::hash) {
        plan.hash_l1_slots = options.hash_l1_slots;
        plan.hash_l2_slots = longest > plan.hash_l1_slots / 2 ? next_pow2(2 * longest) : 0;
        plan.scratch_bytes = (plan.hash_l1_slots + plan.hash_l2_slots) * 2 * size_type(sizeof(I));
    } else {
        // Positions inside a row are 32-bit unless a row has 2^31 entries.
        plan.scratch_bytes = k * (longest < std::numeric_limits<std::int32_t>::max() ? 4 : size_type(sizeof(I)));
    }
    plan.reason = "symbolic " + sym.reason + "; numeric " + num.reason;
    return plan;
}

// ---- numeric phase ---------------------------------------------------------------------

// Fresh numeric rows with a dense array of positions per thread (pos[c]: where column c sits
// in the current row of C, or -1). Sets `ok` false when a row does not have the plan's size.
template <typename P, typename Op, typename V, typename I>
void numeric_fresh_dense(const Op& op, const SpgemmPlan& plan, I* ccol, V* cval, std::atomic<bool>& ok) {
    const size_type* rp = plan.row_ptr.data();
    const size_type k = plan.cols;
    const int threads = std::max(1, omp_get_max_threads());
    const bool sort = plan.sort_columns;
    const size_type longest = plan.max_row_nnz;
    SpgemmMemoryPool pool(threads, k * sizeof(P));
    struct State {
        PoolChunk chunk;
        P* pos;
        std::vector<V> values;  // a row's values while its columns are sorted
    };
    for_each_row(
        plan.row_blocks, threads,
        [&](size_type t) {
            PoolChunk chunk(pool, t);
            P* pos = chunk.as<P>();
            std::fill(pos, pos + k, P(-1));
            auto s = std::unique_ptr<State>(new State{std::move(chunk), pos, {}});
            if (sort) s->values.resize(static_cast<std::size_t>(longest));
            return s;
        },
        [op, rp, ccol, cval, sort, k, &ok](State& s, size_type i) {
            P* pos = s.pos;
            I* oc = ccol + rp[i];
            V* ov = cval + rp[i];
            const size_type cap = rp[i + 1] - rp[i];
            const I* bcol = op.bcol;
            const V* bval = op.bval;
            size_type n = 0;
            bool fits = true;
            for_each_b_row(op, i, [&](size_type fb, size_type fe, V av) {
                for (size_type f = fb; f < fe; ++f) {
                    const I c = bcol[f];
                    const V x = av * bval[f];
                    const P p = pos[c];
                    if (p >= 0) {
                        ov[p] += x;
                    } else if (n < cap) {
                        pos[c] = static_cast<P>(n);
                        oc[n] = c;
                        ov[n] = x;
                        ++n;
                    } else {
                        fits = false;
                    }
                }
            });
            if (!fits || n != cap) ok.store(false, std::memory_order_relaxed);
            if (sort && n > 1) {
                V* tmp = s.values.data();
                std::copy(ov, ov + n, tmp);
                if (n * 8 > k) {
                    // The row fills much of k: list its columns by a scan of pos.
                    size_type t = 0;
                    for (size_type c = 0; c < k; ++c)
                        if (pos[c] >= 0) oc[t++] = static_cast<I>(c);
                    for (t = 0; t < n; ++t) ov[t] = tmp[pos[oc[t]]];
                } else {
                    // Sort the columns alone; pos still maps each to its value.
                    std::sort(oc, oc + n);
                    for (size_type t = 0; t < n; ++t) ov[t] = tmp[pos[oc[t]]];
                }
            }
            for (size_type t = 0; t < n; ++t) pos[oc[t]] = P(-1);
        });
}

// Fresh numeric rows with a two-level hash table of positions per thread.
template <typename P, typename Op, typename V, typename I>
void numeric_fresh_hash(const Op& op, const SpgemmPlan& plan, I* ccol, V* cval, std::atomic<bool>& ok) {
    const size_type* rp = plan.row_ptr.data();
    const int threads = std::max(1, omp_get_max_threads());
    const bool sort = plan.sort_columns;
    const size_type longest = plan.max_row_nnz;
    using Table = TwoLevelHash<I, P>;
    HashPools<Table> pools(threads, std::max<size_type>(16, plan.hash_l1_slots), longest);
    struct State {
        PoolChunk chunk;
        Table table;
        std::vector<std::pair<I, V>> buffer;
    };
    for_each_row(
        plan.row_blocks, threads,
        [&](size_type t) {
            auto s = pools.template state<State>(t, std::vector<std::pair<I, V>>{});
            if (sort) s->buffer.reserve(static_cast<std::size_t>(longest));
            return s;
        },
        [op, rp, ccol, cval, sort, &ok](State& s, size_type i) {
            I* oc = ccol + rp[i];
            V* ov = cval + rp[i];
            const size_type cap = rp[i + 1] - rp[i];
            const I* bcol = op.bcol;
            const V* bval = op.bval;
            size_type n = 0;
            bool fits = true;
            s.table.begin_row(cap);
            for_each_b_row(op, i, [&](size_type fb, size_type fe, V av) {
                for (size_type f = fb; f < fe; ++f) {
                    const I c = bcol[f];
                    const V x = av * bval[f];
                    bool fresh;
                    auto* slot = s.table.insert(c, fresh);
                    if (!fresh) {
                        ov[slot->value] += x;
                    } else if (n < cap) {
                        slot->value = static_cast<P>(n);
                        oc[n] = c;
                        ov[n] = x;
                        ++n;
                    } else {
                        slot->value = 0;  // keeps later products inside the row
                        fits = false;
                    }
                }
            });
            if (!fits || n != cap) ok.store(false, std::memory_order_relaxed);
            s.table.end_row();
            if (sort) sort_row(oc, ov, n, s.buffer);
        });
}

// Fresh numeric phase: columns and values of every row written at row_ptr[i], in the order
// the accumulator meets them. P is the type of positions inside a row. Returns false when a
// row does not have the plan's size.
template <typename P, bool Prefetch, typename V, typename I>
bool numeric_fresh(const SpgemmPlan& plan, const Csr<V, I>& a, const Csr<V, I>& b, I* ccol,
                   V* cval) {
    const Operands<Prefetch, V, I> op = operands<Prefetch>(a, b);
    std::atomic<bool> ok{true};
    if (plan.numeric_accumulator == SpgemmAccumulator::dense)
        numeric_fresh_dense<P>(op, plan, ccol, cval, ok);
    else
        numeric_fresh_hash<P>(op, plan, ccol, cval, ok);
    return ok.load();
}

// Reused numeric phase: C's columns are known, only its values are recomputed in place.
// Returns false when a product falls outside C's pattern.
template <typename P, bool Prefetch, typename V, typename I>
bool numeric_reuse(const SpgemmPlan& plan, const Csr<V, I>& a, const Csr<V, I>& b,
                   const I* ccol, V* cval) {
    const Operands<Prefetch, V, I> op = operands<Prefetch>(a, b);
    const size_type* rp = plan.row_ptr.data();
    const size_type k = plan.cols;
    const int threads = std::max(1, omp_get_max_threads());
    std::atomic<bool> ok{true};

    if (plan.numeric_accumulator == SpgemmAccumulator::dense) {
        // The pattern is known, so no marker is needed: pos[c] is set for C's columns of the
        // row, every product is added at its place without a branch, and the positions go
        // back to 0 (a product outside the pattern, which the precondition rules out, would
        // land on entry 0 of its row rather than outside it).
        SpgemmMemoryPool pool(threads, k * sizeof(P));
        struct State {
            PoolChunk chunk;
            P* pos;
        };
        for_each_row(
            plan.row_blocks, threads,
            [&](size_type t) {
                PoolChunk chunk(pool, t);
                P* pos = chunk.as<P>();
                std::fill(pos, pos + k, P(0));
                return std::unique_ptr<State>(new State{std::move(chunk), pos});
            },
            [op, rp, ccol, cval](State& s, size_type i) {
                P* pos = s.pos;
                const I* oc = ccol + rp[i];
                V* ov = cval + rp[i];
                const size_type cap = rp[i + 1] - rp[i];
                if (cap == 0) return;  // no products either, when the pattern holds
                const I* bcol = op.bcol;
                const V* bval = op.bval;
                for (size_type t = 0; t < cap; ++t) {
                    pos[oc[t]] = static_cast<P>(t);
                    ov[t] = V(0);
                }
                for_each_b_row(op, i, [&](size_type fb, size_type fe, V av) {
                    for (size_type f = fb; f < fe; ++f) ov[pos[bcol[f]]] += av * bval[f];
                });
                for (size_type t = 0; t < cap; ++t) pos[oc[t]] = P(0);
            });
    } else {
        using Table = TwoLevelHash<I, P>;
        HashPools<Table> pools(threads, std::max<size_type>(16, plan.hash_l1_slots), plan.max_row_nnz);
        struct State {
            PoolChunk chunk;
            Table table;
        };
        for_each_row(
            plan.row_blocks, threads, [&](size_type t) { return pools.template state<State>(t); },
            [op, rp, ccol, cval, &ok](State& s, size_type i) {
                const I* oc = ccol + rp[i];
                V* ov = cval + rp[i];
                const size_type cap = rp[i + 1] - rp[i];
                const I* bcol = op.bcol;
                const V* bval = op.bval;
                s.table.begin_row(cap);
                bool inside = true;
                for (size_type t = 0; t < cap; ++t) {
                    bool fresh;
                    s.table.insert(oc[t], fresh)->value = static_cast<P>(t);
                    ov[t] = V(0);
                    inside &= fresh;
                }
                for_each_b_row(op, i, [&](size_type fb, size_type fe, V av) {
                    for (size_type f = fb; f < fe; ++f) {
                        auto* slot = s.table.find(bcol[f]);
                        if (slot)
                            ov[slot->value] += av * bval[f];
                        else
                            inside = false;
                    }
                });
                if (!inside) ok.store(false, std::memory_order_relaxed);
                s.table.end_row();
            });
    }
    return ok.load();
}

}  // namespace

template <typename V, typename I>
SpgemmPlan spgemm_symbolic(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    return symbolic<V, I>(a, b, options, nullptr);
}

template <typename V, typename I>
void spgemm_numeric(const SpgemmPlan& given, const Csr<V, I>& a, const Csr<V, I>& b, Csr<V, I>& c) {
    check_plan(given, a, b, "cpu::spgemm_numeric");
    // A plan from another backend has no row blocks: one block of all rows.
    SpgemmPlan adapted;
    if (given.row_blocks.size() < 2 || given.row_blocks.back() != given.rows) {
        adapted = given;
        adapted.row_blocks = {0, given.rows};
    }
    const SpgemmPlan& plan = adapted.row_blocks.empty() ? given : adapted;
    // Positions inside a row of C fit 32 bits unless a row has 2^31 entries.
    const bool narrow = plan.max_row_nnz < std::numeric_limits<std::int32_t>::max();
    const bool reuse = c.rows() == plan.rows && c.cols() == plan.cols && c.row_ptr() == plan.row_ptr;
    if (reuse) {
        const I* col = c.col_idx().data();
        V* val = c.values_mut().data();
        const bool pf = plan.prefetch_b_rows;
        const bool ok = narrow ? (pf ? numeric_reuse<std::int32_t, true>(plan, a, b, col, val)
                                     : numeric_reuse<std::int32_t, false>(plan, a, b, col, val))
                               : (pf ? numeric_reuse<I, true>(plan, a, b, col, val)
                                     : numeric_reuse<I, false>(plan, a, b, col, val));
        if (!ok)
            TESSEL_INVALID_INPUT("cpu::spgemm_numeric", 0,
                                 "C has the plan's row pointers but not the pattern of A·B "
                                 "(reuse needs the C of an earlier numeric phase with this plan)");
        return;
    }
    std::vector<I> col;
    std::vector<V> val;
    output_arrays(col, &val, plan.nnz(), std::max(1, omp_get_max_threads()));
    const bool pf = plan.prefetch_b_rows;
    const bool ok = narrow ? (pf ? numeric_fresh<std::int32_t, true>(plan, a, b, col.data(), val.data())
                                 : numeric_fresh<std::int32_t, false>(plan, a, b, col.data(), val.data()))
                           : (pf ? numeric_fresh<I, true>(plan, a, b, col.data(), val.data())
                                 : numeric_fresh<I, false>(plan, a, b, col.data(), val.data()));
    if (!ok)
        TESSEL_INVALID_INPUT("cpu::spgemm_numeric", 0,
                             "the rows of A·B do not have the sizes of the plan (did the pattern "
                             "of A or B change?)");
    c = Csr<V, I>(plan.rows, plan.cols, plan.row_ptr, std::move(col), std::move(val), "spgemm");
}

template <typename V, typename I>
Csr<V, I> spgemm(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    const SpgemmPlan plan = cpu::spgemm_symbolic(a, b, options);
    Csr<V, I> c;
    cpu::spgemm_numeric(plan, a, b, c);
    return c;
}

template <typename V, typename I>
Csr<V, I> spgemm_pattern(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    std::vector<I> col;
    SpgemmPlan plan = symbolic<V, I>(a, b, options, &col);
    std::vector<V> val(col.size(), V(1));
    return Csr<V, I>(plan.rows, plan.cols, std::move(plan.row_ptr), std::move(col), std::move(val),
                     "spgemm_pattern");
}

#define TESSEL_INSTANTIATE(V, I)                                                               \
    template SpgemmPlan spgemm_symbolic(const Csr<V, I>&, const Csr<V, I>&,                    \
                                        const SpgemmOptions&);                                 \
    template void spgemm_numeric(const SpgemmPlan&, const Csr<V, I>&, const Csr<V, I>&,        \
                                 Csr<V, I>&);                                                  \
    template Csr<V, I> spgemm(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&);       \
    template Csr<V, I> spgemm_pattern(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cpu
