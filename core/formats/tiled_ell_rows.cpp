// Tiled ELL from rows given block by block: pass 1 asks the source for each block and keeps
// only its sorted distinct columns and slot widths; the arrays are laid out unwritten; pass 2
// asks again, writes every entry into its final slot (the order of tiled_ell_from_csr) and
// pads the rest, so each byte of the bulk is written once.
#include "core/formats/tiled_ell_rows.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/formats/divide_by.hpp"
#include "core/formats/tiled_ell_layout.hpp"
#include "core/instantiate.hpp"

namespace tessel {

namespace {

// Asks the source for rows [r0, r1) and checks what it gave.
template <typename V, typename I>
void fetch(const RowBlockSource<V, I>& source, size_type r0, size_type r1, size_type cols, RowBlock<V, I>& block) {
    block.clear();
    source(r0, r1, block);
    const size_type nnz = static_cast<size_type>(block.col.size());
    if (static_cast<size_type>(block.row_ptr.size()) != r1 - r0 + 1 || block.row_ptr.front() != 0 ||
        block.row_ptr.back() != nnz || static_cast<size_type>(block.values.size()) != nnz)
        TESSEL_INVALID_INPUT("row block source", r0,
                             "rows " + std::to_string(r0) + ".." + std::to_string(r1 - 1) + ": got " +
                                 std::to_string(block.row_ptr.size() - 1) + " rows and " + std::to_string(nnz) +
                                 " columns for " + std::to_string(block.values.size()) + " values");
    for (size_type i = 0; i + 1 < static_cast<size_type>(block.row_ptr.size()); ++i)
        if (block.row_ptr[i] > block.row_ptr[i + 1])
            TESSEL_INVALID_INPUT("row block source", r0 + i, "row pointers decrease");
    // A min-max reduction (vectorised; a test and a branch per entry was 5 % of xct's build),
    // then the search for the first bad column only when there is one.
    const I* col = block.col.data();
    I low = 0, high = 0;
#pragma omp simd reduction(min : low) reduction(max : high)
    for (size_type e = 0; e < nnz; ++e) {
        low = col[e] < low ? col[e] : low;
        high = col[e] > high ? col[e] : high;
    }
    if (low >= 0 && static_cast<size_type>(high) < cols) return;
    for (size_type e = 0; e < nnz; ++e)
        if (col[e] < 0 || static_cast<size_type>(col[e]) >= cols)
            TESSEL_INVALID_INPUT("row block source", r0,
                                 "column " + std::to_string(col[e]) + " outside 0.." + std::to_string(cols - 1));
}

// Runs body(b) for every block in parallel; the first exception is rethrown after the loop.
template <typename State, typename Body>
void for_each_block(size_type blocks, Body&& body) {
    std::exception_ptr error;
#pragma omp parallel
    {
        State state;
#pragma omp for schedule(dynamic, 4)
        for (size_type b = 0; b < blocks; ++b) {
            try {
                body(b, state);
            } catch (...) {
#pragma omp critical(tessel_tiled_ell_rows_error)
                if (!error) error = std::current_exception();
            }
        }
    }
    if (error) std::rethrow_exception(error);
}

// A set of columns as bits: membership in O(1) from a table of cols/8 bytes (the block's
// distinct columns are found without a sort when they are many).
class ColumnSet {
public:
    void size_for(size_type cols) {
        if (words_.empty() && cols > 0) words_.assign(static_cast<std::size_t>((cols + 63) / 64), 0);
    }
    bool contains(size_type c) const { return (words_[c >> 6] >> (c & 63)) & 1; }
    /// Adds c; true when it was not there.
    bool insert(size_type c) {
        std::uint64_t& word = words_[c >> 6];
        const std::uint64_t bit = std::uint64_t(1) << (c & 63);
        const bool added = !(word & bit);
        word |= bit;
        return added;
    }
    /// Empties the set, whose members are `members` (any order), and sorts them: by a scan of
    /// the bits when they are many, else by std::sort.
    template <typename I>
    void drain_sorted(std::vector<I>& members) {
        if (static_cast<std::size_t>(members.size()) * 16 < words_.size()) {
            std::sort(members.begin(), members.end());
            for (const I c : members) words_[c >> 6] = 0;
            return;
        }
        std::size_t n = 0;
        for (std::size_t wi = 0; wi < words_.size(); ++wi)
            for (std::uint64_t word = std::exchange(words_[wi], 0); word != 0; word &= word - 1)
                members[n++] = static_cast<I>(wi * 64 + static_cast<std::size_t>(std::countr_zero(word)));
    }
    /// Removes `members`, all of them in the set.
    template <typename I>
    void erase(const std::vector<I>& members) {
        for (const I c : members) words_[c >> 6] = 0;
    }

private:
    std::vector<std::uint64_t> words_;
};

template <typename V, typename I>
struct ThreadState {
    RowBlock<V, I> block;
    ColumnSet columns;          // the block's distinct columns while it is handled
    std::vector<I> position;    // the column's place among the block's distinct columns
    std::vector<size_type> count;
    void size_for(size_type cols) {
        columns.size_for(cols);
        if (position.empty() && cols > 0) position.assign(static_cast<std::size_t>(cols), 0);
    }
};


// Where pass 2 writes one block: its (stage, warp) slot rows and the arrays, as plain pointers
// so that the entry loop keeps them in registers.
template <typename V>
struct BlockSlots {
    const size_type* warp_first;  // (stage, warp) -> first slot row; one past the last at +1
    size_type stages, warps, rows_per_block, buffer_entries;
    std::uint16_t* index;
    V* values;                   // null when the values are half
    std::uint16_t* half_values;  // null when they are not
};

// Writes every entry of `rows` (block rows r0..) to its slot, counting per (stage, row) in
// `count`; false when an entry does not fit what pass 1 measured (the rows changed).
template <bool Half, typename V, typename I>
bool place_entries(const RowBlock<V, I>& rows, size_type r0, const ColumnSet& columns, const I* position,
                   const DivideBy& stage_of, const BlockSlots<V>& out, size_type* count) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type* rp = rows.row_ptr.data();
    const I* ci = rows.col.data();
    const V* va = rows.values.data();
    const size_type n = static_cast<size_type>(rows.row_ptr.size()) - 1;
    for (size_type r = 0; r < n; ++r) {
        const size_type lane = r % w, warp = r / w;
        for (size_type e = rp[r]; e < rp[r + 1]; ++e) {
            if (!columns.contains(ci[e])) return false;
            const size_type pos = position[ci[e]], st = stage_of(pos);
            const size_type* wd = out.warp_first + st * out.warps + warp;
            const size_type row = wd[0] + count[st * out.rows_per_block + r]++;
            if (row >= wd[1]) return false;
            const size_type slot = row * w + lane;
            out.index[slot] = static_cast<std::uint16_t>(pos - st * out.buffer_entries);
            if constexpr (!Half) {
                out.values[slot] = va[e];
            } else {
                if (!(std::abs(double(va[e])) <= half_max))
                    TESSEL_INVALID_INPUT("tiled ELL values", r0 + r,
                                         "row " + std::to_string(r0 + r) + " holds " + std::to_string(double(va[e])) +
                                             ", which does not fit IEEE half precision (finite, magnitude <= 65504)");
                out.half_values[slot] = float_to_half(static_cast<float>(va[e]));
            }
        }
    }
    return true;
}

// Pads the slots no entry took (index 0, value 0): the arrays were left unwritten.
template <typename V>
void pad_rest(const BlockSlots<V>& out, const size_type* count) {
    constexpr size_type w = TiledEll<V, std::int32_t>::warp_size;
    for (size_type st = 0; st < out.stages; ++st)
        for (size_type r = 0; r < out.rows_per_block; ++r) {
            const size_type* wd = out.warp_first + st * out.warps + r / w;
            for (size_type row = wd[0] + count[st * out.rows_per_block + r]; row < wd[1]; ++row) {
                const size_type slot = row * w + r % w;
                out.index[slot] = 0;
                if (out.values) out.values[slot] = V{0};
                if (out.half_values) out.half_values[slot] = 0;
            }
        }
}

}  // namespace

template <typename V, typename I>
TiledEll<V, I> tiled_ell_from_row_blocks(size_type rows, size_type cols, const RowBlockSource<V, I>& source,
                                         const TiledEllConfig& config, bool half_values) {
    check_tiled_ell_config(config);
    if (rows < 0 || cols < 0)
        TESSEL_INVALID_INPUT("row block source", 0, "negative size " + std::to_string(rows) + " x " + std::to_string(cols));
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type br = config.block_rows, be = config.buffer_entries, warps = br / w;
    const size_type blocks = (rows + br - 1) / br;
    const DivideBy stage_of(be);
    std::vector<std::vector<I>> maps(static_cast<std::size_t>(blocks));
    std::vector<std::vector<size_type>> widths(static_cast<std::size_t>(blocks));
    std::vector<size_type> distinct(static_cast<std::size_t>(blocks)), block_nnz(static_cast<std::size_t>(blocks));

    // Pass 1: sorted distinct columns and the width of every (stage, warp).
    for_each_block<ThreadState<V, I>>(blocks, [&](size_type b, ThreadState<V, I>& s) {
        const size_type r0 = b * br, r1 = std::min(rows, r0 + br);
        s.size_for(cols);
        fetch(source, r0, r1, cols, s.block);
        const auto& rp = s.block.row_ptr;
        const auto& ci = s.block.col;
        auto& map = maps[b];
        for (const I c : ci)
            if (s.columns.insert(c)) map.push_back(c);
        s.columns.drain_sorted(map);
        for (std::size_t i = 0; i < map.size(); ++i) s.position[map[i]] = static_cast<I>(i);
        distinct[b] = static_cast<size_type>(map.size());
        block_nnz[b] = static_cast<size_type>(ci.size());
        const size_type stages = detail::stages_for(distinct[b], be);
        s.count.assign(static_cast<std::size_t>(stages * br), 0);
        for (size_type r = 0; r < r1 - r0; ++r)
            for (size_type e = rp[r]; e < rp[r + 1]; ++e) ++s.count[stage_of(s.position[ci[e]]) * br + r];
        auto& width = widths[b];
        width.assign(static_cast<std::size_t>(stages * warps), 0);
        for (size_type st = 0; st < stages; ++st)
            for (size_type r = 0; r < br; ++r)
                width[st * warps + r / w] = std::max(width[st * warps + r / w], s.count[st * br + r]);
    });

    TiledEll<V, I> t;
    t.rows = rows;
    t.cols = cols;
    t.config = config;
    for (const size_type n : block_nnz) t.nnz += n;
    detail::lay_out_tiled_ell(t, distinct, widths, half_values, /*clear=*/false);
    widths = {};

    // Pass 2: the rows again, every entry to its slot, then the padding; the maps move into place.
    std::uint16_t* index = t.index.data();
    V* values = half_values ? nullptr : t.values.data();
    std::uint16_t* halves = half_values ? t.half_values.data() : nullptr;
    for_each_block<ThreadState<V, I>>(blocks, [&](size_type b, ThreadState<V, I>& s) {
        const size_type r0 = b * br, r1 = std::min(rows, r0 + br);
        s.size_for(cols);
        fetch(source, r0, r1, cols, s.block);
        auto& map = maps[b];
        std::copy(map.begin(), map.end(), t.map.begin() + t.mapdispl[t.buffdispl[b]]);
        for (std::size_t i = 0; i < map.size(); ++i) {
            s.columns.insert(map[i]);
            s.position[map[i]] = static_cast<I>(i);
        }
        const BlockSlots<V> out{t.warpdispl.data() + t.buffdispl[b] * warps, t.buffdispl[b + 1] - t.buffdispl[b],
                                warps, br, be, index, values, halves};
        s.count.assign(static_cast<std::size_t>(out.stages * br), 0);
        bool same = static_cast<size_type>(s.block.col.size()) == block_nnz[b];
        try {
            same = same && (half_values ? place_entries<true>(s.block, r0, s.columns, s.position.data(), stage_of, out,
                                                              s.count.data())
                                        : place_entries<false>(s.block, r0, s.columns, s.position.data(), stage_of,
                                                               out, s.count.data()));
        } catch (...) {
            s.columns.erase(map);
            throw;
        }
        s.columns.erase(map);
        std::vector<I>().swap(map);
        if (!same)
            TESSEL_THROW(Error, "tiled_ell_from_row_blocks: the source gave rows " + std::to_string(r0) + ".." +
                                    std::to_string(r1 - 1) + " differently the second time");
        pad_rest(out, s.count.data());
    });
    return t;
}

#define TESSEL_INSTANTIATE(V, I)                                                                          \
    template TiledEll<V, I> tiled_ell_from_row_blocks(size_type, size_type, const RowBlockSource<V, I>&, \
                                                      const TiledEllConfig&, bool);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
