// The numeric phase of the cpu SpGEMM: the rows of C filled on the symbolic phase's plan
// (fresh, or reused: C's pattern kept, its values recomputed in place), with a dense or
// two-level hash accumulator per thread, over the plan's flop-balanced row blocks.
#include <omp.h>

#include "core/cpu/spgemm/spgemm_rows.hpp"

// Compiled once per x86-64 level (core/cpu/isa_region.hpp); core/cpu/spgemm/spgemm_entry_points.cpp
// picks the level.
TESSEL_CPU_ISA_BEGIN

namespace {

using namespace spgemm_detail;

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
void spgemm_numeric(const SpgemmPlan& given, const Csr<V, I>& a, const Csr<V, I>& b, Csr<V, I>& c) {
    ::tessel::detail::check_spgemm_plan(given, a, b, "cpu::spgemm_numeric");
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

#define TESSEL_INSTANTIATE(V, I) \
    template void spgemm_numeric(const SpgemmPlan&, const Csr<V, I>&, const Csr<V, I>&, Csr<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

TESSEL_CPU_ISA_END
