// The symbolic phase of the cpu SpGEMM: the size of every row of C (and, for the boolean
// product, its columns) on B itself or on B packed into bit sets when that pays, with a dense
// or two-level hash accumulator per thread (Deveci et al. 2018), over flop-balanced row blocks.
#include <omp.h>

#include "core/cpu/spgemm/spgemm_rows.hpp"

// Compiled once per x86-64 level (core/cpu/isa_region.hpp); core/cpu/spgemm/spgemm_entry_points.cpp
// picks the level.
TESSEL_CPU_ISA_BEGIN

namespace {

using namespace spgemm_detail;

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
    ::tessel::detail::check_spgemm_operands(a, b, "cpu::spgemm_symbolic");
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


}  // namespace

template <typename V, typename I>
SpgemmPlan spgemm_symbolic(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    return symbolic<V, I>(a, b, options, nullptr);
}

template <typename V, typename I>
Csr<V, I> spgemm_pattern(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    std::vector<I> col;
    SpgemmPlan plan = symbolic<V, I>(a, b, options, &col);
    std::vector<V> val(col.size(), V(1));
    return Csr<V, I>(plan.rows, plan.cols, std::move(plan.row_ptr), std::move(col), std::move(val),
                     "spgemm_pattern");
}

#define TESSEL_INSTANTIATE(V, I) \
    template SpgemmPlan spgemm_symbolic(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&); \
    template Csr<V, I> spgemm_pattern(const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

TESSEL_CPU_ISA_END
