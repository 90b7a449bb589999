// Tiled ELL transpose: A's blocks are decoded one at a time into a small CSR (rows in order,
// zeros skipped), and each thread walks a contiguous run of A's rows, so the rows of A that
// meet a block of Aᵀ come out ascending without sorting and their rank is a moving cursor.
#include "core/formats/tiled_ell_transpose.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/formats/divide_by.hpp"
#include "core/formats/tiled_ell_layout.hpp"
#include "core/formats/tiled_ell_rows.hpp"
#include "core/instantiate.hpp"

namespace tessel {

namespace {

// A's slots read through raw pointers taken once: SlotArray's accessors test for a view (and
// value() for half storage) on every element, which the passes below do hundreds of millions
// of times.
template <typename V>
struct Slots {
    const std::uint16_t* index;
    const V* values;            // null when the values are half
    const std::uint16_t* halves;
    template <typename I>
    explicit Slots(const TiledEll<V, I>& a)
        : index(a.index.data()), values(a.stores_half() ? nullptr : a.values.data()),
          halves(a.stores_half() ? a.half_values.data() : nullptr) {}
    V value(size_type e) const { return values ? values[e] : V(half_to_float(halves[e])); }
};

// Aᵀ's slots written the same way (values in half when Aᵀ stores half).
template <typename V>
struct SlotsOut {
    std::uint16_t* index;
    V* values;  // null when the values are half
    std::uint16_t* halves;
    template <typename I>
    SlotsOut(TiledEll<V, I>& t, bool half)
        : index(t.index.data()), values(half ? nullptr : t.values.data()),
          halves(half ? t.half_values.data() : nullptr) {}
    void set(size_type slot, std::uint16_t local, V v) const {
        index[slot] = local;
        if (values)
            values[slot] = v;
        else
            halves[slot] = float_to_half(static_cast<float>(v));
    }
    void pad(size_type slot) const {  // index 0, value 0
        index[slot] = 0;
        if (values)
            values[slot] = V{0};
        else
            halves[slot] = 0;
    }
};

// Rows of A's block b as CSR: row_ptr local to the block, each row's entries in (stage, slot)
// order, padding and stored zeros left out.
template <typename V, typename I>
void decode_block(const TiledEll<V, I>& a, size_type b, RowBlock<V, I>& out) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type warps = a.warps_per_block(), r0 = b * a.config.block_rows;
    const size_type rows = std::min(a.rows, r0 + a.config.block_rows) - r0;
    out.row_ptr.assign(static_cast<std::size_t>(rows + 1), 0);
    const Slots<V> slots(a);
    auto for_each = [&](auto&& visit) {
        for (size_type s = a.buffdispl[b]; s < a.buffdispl[b + 1]; ++s)
            for (size_type wi = 0; wi < warps; ++wi)
                for (size_type m = a.warpdispl[s * warps + wi]; m < a.warpdispl[s * warps + wi + 1]; ++m)
                    for (size_type lane = 0; lane < w; ++lane) {
                        const size_type r = wi * w + lane, slot = m * w + lane;
                        if (r < rows && slots.value(slot) != V{0}) visit(r, s, slot);
                    }
    };
    for_each([&](size_type r, size_type, size_type) { ++out.row_ptr[r + 1]; });
    for (size_type r = 0; r < rows; ++r) out.row_ptr[r + 1] += out.row_ptr[r];
    out.col.resize(static_cast<std::size_t>(out.row_ptr.back()));
    out.values.resize(out.col.size());
    std::vector<size_type>& next = out.row_ptr;  // advanced while writing, then restored
    for_each([&](size_type r, size_type s, size_type slot) {
        const size_type e = next[r]++;
        out.col[e] = a.map[a.mapdispl[s] + slots.index[slot]];
        out.values[e] = slots.value(slot);
    });
    for (size_type r = rows; r > 0; --r) next[r] = next[r - 1];
    next[0] = 0;
}

// Runs of A's blocks, one per thread, of about equal stored slots.
template <typename V, typename I>
std::vector<size_type> thread_runs(const TiledEll<V, I>& a, int threads) {
    const size_type blocks = a.num_blocks(), warps = a.warps_per_block();
    std::vector<size_type> start(static_cast<std::size_t>(threads + 1), blocks);
    start[0] = 0;
    const size_type slots = a.warpdispl.empty() ? 0 : a.warpdispl.back();
    size_type b = 0;
    for (int t = 1; t < threads; ++t) {
        const size_type goal = slots * t / threads;
        while (b < blocks && a.warpdispl[a.buffdispl[b] * warps] < goal) ++b;
        start[t] = b;
    }
    return start;
}

// Calls visit(row of A, column of A, value) for the entries of thread t's run, rows ascending.
template <typename V, typename I, typename Visit>
void walk_run(const TiledEll<V, I>& a, size_type first_block, size_type last_block, RowBlock<V, I>& block,
              Visit&& visit) {
    for (size_type b = first_block; b < last_block; ++b) {
        decode_block(a, b, block);
        const size_type r0 = b * a.config.block_rows;
        for (size_type r = 0; r + 1 < static_cast<size_type>(block.row_ptr.size()); ++r)
            for (size_type e = block.row_ptr[r]; e < block.row_ptr[r + 1]; ++e)
                visit(static_cast<I>(r0 + r), block.col[e], block.values[e]);
    }
}

// Calls visit(row of A, column of A, value) for the entries of blocks [first_block, last_block)
// in storage order (rows interleaved within a block): no decoding, for passes that need no order.
template <typename V, typename I, typename Visit>
void walk_stored(const TiledEll<V, I>& a, size_type first_block, size_type last_block, Visit&& visit) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type warps = a.warps_per_block();
    const Slots<V> slots(a);
    for (size_type b = first_block; b < last_block; ++b) {
        const size_type r0 = b * a.config.block_rows;
        for (size_type s = a.buffdispl[b]; s < a.buffdispl[b + 1]; ++s) {
            const I* map = a.map.data() + a.mapdispl[s];
            for (size_type wi = 0; wi < warps; ++wi) {
                const size_type lanes = std::min(w, a.rows - r0 - wi * w);
                for (size_type m = a.warpdispl[s * warps + wi]; m < a.warpdispl[s * warps + wi + 1]; ++m)
                    for (size_type lane = 0; lane < lanes; ++lane) {
                        const V v = slots.value(m * w + lane);
                        if (v != V{0}) visit(b, static_cast<I>(r0 + wi * w + lane), map[slots.index[m * w + lane]], v);
                    }
            }
        }
    }
}

// Pass 1 of the transpose: per thread (its run of A's blocks) and block of Aᵀ, the rows of A
// that meet the block, ascending: a bit per (block of Aᵀ, row of A's current block), emptied
// in order after each block of A.
template <typename V, typename I>
std::vector<std::vector<std::vector<I>>> rows_meeting_blocks(const TiledEll<V, I>& a, const std::vector<size_type>& run,
                                                             size_type blocks, size_type br, int threads) {
    std::vector<std::vector<std::vector<I>>> rows_of(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        auto& mine = rows_of[t];
        mine.resize(static_cast<std::size_t>(blocks));
        const size_type words = (a.config.block_rows + 63) / 64;
        std::vector<std::uint64_t> bits(static_cast<std::size_t>(blocks * words), 0);
        std::vector<size_type> touched;
        std::vector<char> listed(static_cast<std::size_t>(blocks), 0);
        const DivideBy block_of(br);
        size_type current = -1;
        auto flush = [&]() {
            const size_type r0 = current * a.config.block_rows;
            std::sort(touched.begin(), touched.end());
            for (const size_type p : touched) {
                listed[p] = 0;
                for (size_type k = 0; k < words; ++k)
                    for (std::uint64_t word = std::exchange(bits[p * words + k], 0); word; word &= word - 1)
                        mine[p].push_back(static_cast<I>(r0 + k * 64 + std::countr_zero(word)));
            }
            touched.clear();
        };
        walk_stored(a, run[t], run[t + 1], [&](size_type b, I row, I col, V) {
            if (b != current) {
                if (current >= 0) flush();
                current = b;
            }
            const size_type p = block_of(col), r = row - current * a.config.block_rows;
            if (!listed[p]) {
                listed[p] = 1;
                touched.push_back(p);
            }
            bits[p * words + r / 64] |= std::uint64_t(1) << (r % 64);
        });
        if (current >= 0) flush();
    }
    return rows_of;
}

// The first row of A in every stage of Aᵀ (the rank-th distinct row of its block, found in
// its thread's list; the largest index past the last): pass 2 finds a row's stage among them.
template <typename I>
std::vector<I> first_rows_of_stages(const std::vector<std::vector<std::vector<I>>>& rows_of,
                                    const std::vector<std::vector<size_type>>& base,
                                    const std::vector<size_type>& distinct, const std::vector<size_type>& stage_at,
                                    size_type be) {
    const int threads = static_cast<int>(rows_of.size());
    const size_type blocks = static_cast<size_type>(distinct.size());
    std::vector<I> first_row_of_stage(static_cast<std::size_t>(stage_at.back()));
    for (size_type p = 0; p < blocks; ++p)
        for (size_type s = 0; s < stage_at[p + 1] - stage_at[p]; ++s) {
            size_type rank = s * be;
            int u = 0;
            while (u + 1 < threads && base[u + 1][p] <= rank) ++u;
            first_row_of_stage[stage_at[p] + s] =
                rank < distinct[p] ? rows_of[u][p][rank - base[u][p]] : std::numeric_limits<I>::max();
        }
    return first_row_of_stage;
}

// Pass 1's result and the layout of Aᵀ's blocks that follows from it.
template <typename I>
struct TransposeBlocks {
    std::vector<size_type> run;                  // each thread's rows of A
    std::vector<std::vector<std::vector<I>>> rows_of;  // per thread and block of Aᵀ: rows of A, ascending
    std::vector<size_type> distinct, stage_at;   // per block: distinct rows of A, first stage
    std::vector<std::vector<size_type>> base;    // per thread and block: its first rank among them
};

// Pass 1: per thread and block of Aᵀ, the rows of A that meet it; where each thread's rows
// start among a block's distinct columns, and the stages.
template <typename V, typename I>
TransposeBlocks<I> find_blocks(const TiledEll<V, I>& a, size_type blocks, size_type br, size_type be, int threads) {
    TransposeBlocks<I> tb;
    tb.run = thread_runs(a, threads);
    tb.rows_of = rows_meeting_blocks(a, tb.run, blocks, br, threads);
    tb.distinct.assign(static_cast<std::size_t>(blocks), 0);
    tb.stage_at.assign(static_cast<std::size_t>(blocks + 1), 0);
    tb.base.assign(static_cast<std::size_t>(threads), std::vector<size_type>(blocks));
    for (size_type p = 0; p < blocks; ++p) {
        for (int t = 0; t < threads; ++t) {
            tb.base[t][p] = tb.distinct[p];
            tb.distinct[p] += static_cast<size_type>(tb.rows_of[t][p].size());
        }
        tb.stage_at[p + 1] = tb.stage_at[p] + detail::stages_for(tb.distinct[p], be);
    }
    return tb;
}

// Pass 2: entries per (row of Aᵀ, stage) and thread, in storage order: the stage of a row of A
// is found among the first rows of the block's stages, from a cursor per block of Aᵀ that
// follows the first row of A's current block (its rows lie within a block of it, so the search
// takes a step or two; from the block's first stage it took half its stages per entry).
template <typename V, typename I>
std::vector<std::vector<std::uint32_t>> count_entries(const TiledEll<V, I>& a, const TransposeBlocks<I>& tb,
                                                      size_type br, size_type be, int threads) {
    const std::size_t keys = static_cast<std::size_t>(tb.stage_at.back() * br);
    const std::vector<I> first_row_of_stage = first_rows_of_stages(tb.rows_of, tb.base, tb.distinct, tb.stage_at, be);
    const size_type blocks = static_cast<size_type>(tb.distinct.size());
    std::vector<std::vector<std::uint32_t>> count(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        auto& mine = count[t];
        mine.assign(keys, 0);
        const DivideBy block_of(br);
        // Per block of Aᵀ: the stage of the first row of the block of A it was last met in.
        std::vector<size_type> cursor(tb.stage_at.begin(), tb.stage_at.end() - 1);
        std::vector<size_type> cursor_block(static_cast<std::size_t>(blocks), -1);
        walk_stored(a, tb.run[t], tb.run[t + 1], [&](size_type b, I row, I col, V) {
            const size_type p = block_of(col), end = tb.stage_at[p + 1];
            size_type& c = cursor[p];
            if (cursor_block[p] != b) {  // the thread's blocks of A ascend: the cursor only moves on
                cursor_block[p] = b;
                const size_type r0 = b * a.config.block_rows;
                while (c + 1 < end && first_row_of_stage[c + 1] <= r0) ++c;
            }
            size_type s = c;
            while (s + 1 < end && first_row_of_stage[s + 1] <= row) ++s;
            ++mine[s * br + (col - p * br)];
        });
    }
    return count;
}

// Widths per (stage, warp) of every block; the counters become each thread's first slot per key.
template <typename I>
std::vector<std::vector<size_type>> slot_widths(std::vector<std::vector<std::uint32_t>>& count,
                                                const TransposeBlocks<I>& tb, size_type br, size_type warps,
                                                int threads) {
    constexpr size_type w = TiledEll<float, I>::warp_size;
    const size_type blocks = static_cast<size_type>(tb.distinct.size());
    std::vector<std::vector<size_type>> widths(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (size_type p = 0; p < blocks; ++p) {
        const size_type stages = tb.stage_at[p + 1] - tb.stage_at[p];
        widths[p].assign(static_cast<std::size_t>(stages * warps), 0);
        for (size_type s = 0; s < stages; ++s)
            for (size_type r = 0; r < br; ++r) {
                const std::size_t key = static_cast<std::size_t>((tb.stage_at[p] + s) * br + r);
                std::uint32_t sum = 0;
                for (int t = 0; t < threads; ++t) {
                    const std::uint32_t here = count[t][key];
                    count[t][key] = sum;
                    sum += here;
                }
                size_type& width = widths[p][s * warps + r / w];
                width = std::max<size_type>(width, sum);
            }
    }
    return widths;
}

// Aᵀ's block p's map: the threads' lists of A's rows end to end.
template <typename V, typename I>
void copy_block_map(TiledEll<V, I>& t, const TransposeBlocks<I>& tb, size_type p) {
    for (std::size_t u = 0; u < tb.rows_of.size(); ++u)
        std::copy(tb.rows_of[u][p].begin(), tb.rows_of[u][p].end(),
                  t.map.begin() + t.mapdispl[tb.stage_at[p]] + tb.base[u][p]);
}

// Pads the slots of Aᵀ's block p that no entry took (index 0, value 0): `filled` holds, per
// (stage, row), the entries written (the last thread's counters end at the total). The slots
// were left unwritten by the layout, so each byte of the bulk is written once.
template <typename V, typename I>
void pad_block(TiledEll<V, I>& t, const TransposeBlocks<I>& tb, const std::vector<std::uint32_t>& filled,
               size_type p, bool half) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type br = t.config.block_rows, warps = br / w;
    const SlotsOut<V> out(t, half);
    for (size_type stage = tb.stage_at[p]; stage < tb.stage_at[p + 1]; ++stage)
        for (size_type r = 0; r < br; ++r) {
            const size_type* wd = t.warpdispl.data() + stage * warps + r / w;
            for (size_type m = wd[0] + filled[static_cast<std::size_t>(stage * br + r)]; m < wd[1]; ++m)
                out.pad(m * w + r % w);
        }
}

// Pass 3: every entry to its slot, walking the entries row by row (the rank of A's row among
// the block's distinct columns is a cursor into the thread's own list); the maps are the
// threads' lists end to end; then the padding. Returns the entries written.
template <typename V, typename I>
size_type fill_slots(const TiledEll<V, I>& a, TiledEll<V, I>& t, const TransposeBlocks<I>& tb,
                     std::vector<std::vector<std::uint32_t>>& count, bool half, int threads) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type br = t.config.block_rows, be = t.config.buffer_entries, warps = br / w;
    const size_type blocks = static_cast<size_type>(tb.distinct.size());
    size_type nnz = 0;
    const SlotsOut<V> out(t, half);
#pragma omp parallel num_threads(threads) reduction(+ : nnz)
    {
        const int th = omp_get_thread_num();
        RowBlock<V, I> block;
        std::vector<size_type> cursor(static_cast<std::size_t>(blocks), 0);
        const auto& mine = tb.rows_of[th];
        const DivideBy block_of(br), stage_of(be);
        walk_run(a, tb.run[th], tb.run[th + 1], block, [&](I row, I col, V v) {
            const size_type p = block_of(col);
            size_type& c = cursor[p];
            while (mine[p][c] < row) ++c;
            const size_type rank = tb.base[th][p] + c, s = stage_of(rank), r = col - p * br;
            const size_type m = count[th][(tb.stage_at[p] + s) * br + r]++;
            const size_type slot = (t.warpdispl[(tb.stage_at[p] + s) * warps + r / w] + m) * w + r % w;
            out.set(slot, static_cast<std::uint16_t>(rank - s * be), v);
            ++nnz;
        });
#pragma omp barrier
#pragma omp for schedule(dynamic, 16)
        for (size_type p = 0; p < blocks; ++p) {
            copy_block_map(t, tb, p);
            pad_block(t, tb, count.back(), p, half);
        }
    }
    return nnz;
}

// Aᵀ's layout from pass 1's blocks and pass 2's counts (slots sized, not written).
template <typename V, typename I>
TiledEll<V, I> layout_of(const TiledEll<V, I>& a, const TiledEllConfig& config, const TransposeBlocks<I>& tb,
                         std::vector<std::vector<std::uint32_t>>& count, int threads) {
    auto widths = slot_widths(count, tb, config.block_rows, config.block_rows / TiledEll<V, I>::warp_size, threads);
    TiledEll<V, I> t;
    t.rows = a.cols;
    t.cols = a.rows;
    t.config = config;
    const bool half = a.stores_half();  // half values stay half (exactly: no rounding again)
    detail::lay_out_tiled_ell(t, tb.distinct, widths, half, /*clear=*/false);  // fill_slots pads
    return t;
}

// Passes 1 and 2, which the whole transpose and the layout alone share.
template <typename I>
struct FirstPasses {
    int threads;
    TransposeBlocks<I> tb;
    std::vector<std::vector<std::uint32_t>> count;
};

template <typename V, typename I>
FirstPasses<I> first_passes(const TiledEll<V, I>& a, const TiledEllConfig& config) {
    check_tiled_ell_config(config);
    const size_type br = config.block_rows, be = config.buffer_entries;
    const size_type blocks = (a.cols + br - 1) / br;  // blocks of Aᵀ
    FirstPasses<I> f;
    f.threads = std::max(1, omp_get_max_threads());
    f.tb = find_blocks(a, blocks, br, be, f.threads);
    f.count = count_entries(a, f.tb, br, be, f.threads);
    return f;
}

}  // namespace

template <typename V, typename I>
TiledEll<V, I> tiled_ell_transpose(const TiledEll<V, I>& a, const TiledEllConfig& config) {
    auto f = first_passes(a, config);
    TiledEll<V, I> t = layout_of(a, config, f.tb, f.count, f.threads);
    t.nnz = fill_slots(a, t, f.tb, f.count, a.stores_half(), f.threads);
    return t;
}

template <typename V, typename I>
TiledEll<V, I> tiled_ell_transpose_layout(const TiledEll<V, I>& a, const TiledEllConfig& config) {
    auto f = first_passes(a, config);
    size_type nnz = 0;  // before layout_of turns the counts into offsets
    for (const auto& mine : f.count)
        for (const std::uint32_t c : mine) nnz += c;
    TiledEll<V, I> t = layout_of(a, config, f.tb, f.count, f.threads);
    t.index.release();  // the slots are the device's to make: sized, never touched, released
    t.values.release();
    t.half_values.release();
    const size_type blocks = static_cast<size_type>(f.tb.distinct.size());
#pragma omp parallel for schedule(dynamic, 16) num_threads(f.threads)
    for (size_type p = 0; p < blocks; ++p) copy_block_map(t, f.tb, p);
    t.nnz = nnz;
    return t;
}

#define TESSEL_INSTANTIATE(V, I)                                                                 \
    template TiledEll<V, I> tiled_ell_transpose(const TiledEll<V, I>&, const TiledEllConfig&); \
    template TiledEll<V, I> tiled_ell_transpose_layout(const TiledEll<V, I>&, const TiledEllConfig&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
