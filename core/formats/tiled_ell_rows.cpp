// Tiled ELL from rows given block by block: pass 1 asks the source for each block and keeps
// only its sorted distinct columns and slot widths; the arrays are laid out; pass 2 asks again
// and writes every entry into its final slot (the order of tiled_ell_from_csr).
#include "core/formats/tiled_ell_rows.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

#include "core/error.hpp"
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
    for (const I c : block.col)
        if (c < 0 || static_cast<size_type>(c) >= cols)
            TESSEL_INVALID_INPUT("row block source", r0,
                                 "column " + std::to_string(c) + " outside 0.." + std::to_string(cols - 1));
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

template <typename V, typename I>
struct ThreadState {
    RowBlock<V, I> block;
    std::vector<size_type> seen;  // block that last saw the column
    std::vector<I> position;      // the column's place among the block's distinct columns
    std::vector<size_type> count;
    void size_for(size_type cols) {
        if (seen.empty() && cols > 0) {
            seen.assign(static_cast<std::size_t>(cols), -1);
            position.assign(static_cast<std::size_t>(cols), 0);
        }
    }
};

// The stage of a staged position, pos / be: a shift when be is a power of two (the default
// 4096), since a division per entry, twice, was a visible share of xct's build.
class StageOf {
public:
    explicit StageOf(size_type be) : be_(be) {
        while ((size_type(1) << shift_) < be) ++shift_;
        if ((size_type(1) << shift_) != be) shift_ = -1;
    }
    size_type operator()(size_type pos) const { return shift_ >= 0 ? pos >> shift_ : pos / be_; }

private:
    size_type be_;
    int shift_ = 0;
};

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
    const StageOf stage_of(be);
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
            if (s.seen[c] != b) {
                s.seen[c] = b;
                map.push_back(c);
            }
        std::sort(map.begin(), map.end());
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
    detail::lay_out_tiled_ell(t, distinct, widths, half_values);
    widths = {};

    // Pass 2: the rows again, every entry to its slot; the maps move into place.
    for_each_block<ThreadState<V, I>>(blocks, [&](size_type b, ThreadState<V, I>& s) {
        const size_type r0 = b * br, r1 = std::min(rows, r0 + br);
        s.size_for(cols);
        fetch(source, r0, r1, cols, s.block);
        const auto& rp = s.block.row_ptr;
        const auto& ci = s.block.col;
        const auto& va = s.block.values;
        const auto& map = maps[b];
        std::copy(map.begin(), map.end(), t.map.begin() + t.mapdispl[t.buffdispl[b]]);
        for (std::size_t i = 0; i < map.size(); ++i) {
            s.seen[map[i]] = b;
            s.position[map[i]] = static_cast<I>(i);
        }
        const size_type stages = t.buffdispl[b + 1] - t.buffdispl[b];
        const size_type* warp_first = t.warpdispl.data() + t.buffdispl[b] * warps;  // (stage, warp) -> first slot row
        bool same = static_cast<size_type>(ci.size()) == block_nnz[b];
        s.count.assign(static_cast<std::size_t>(stages * br), 0);
        for (size_type r = 0; same && r < r1 - r0; ++r)
            for (size_type e = rp[r]; e < rp[r + 1]; ++e) {
                if (s.seen[ci[e]] != b) {
                    same = false;
                    break;
                }
                const size_type pos = s.position[ci[e]], st = stage_of(pos);
                const size_type* wd = warp_first + st * warps + r / w;
                const size_type first = wd[0];
                const size_type m = s.count[st * br + r]++;
                if (first + m >= wd[1]) {
                    same = false;
                    break;
                }
                const size_type slot = (first + m) * w + r % w;
                t.index[slot] = static_cast<std::uint16_t>(pos - st * be);
                if (!half_values) {
                    t.values[slot] = va[e];
                } else if (std::abs(double(va[e])) <= half_max) {
                    t.half_values[slot] = float_to_half(static_cast<float>(va[e]));
                } else {
                    TESSEL_INVALID_INPUT("tiled ELL values", r0 + r,
                                         "row " + std::to_string(r0 + r) + " holds " + std::to_string(double(va[e])) +
                                             ", which does not fit IEEE half precision (finite, magnitude <= 65504)");
                }
            }
        std::vector<I>().swap(maps[b]);
        if (!same)
            TESSEL_THROW(Error, "tiled_ell_from_row_blocks: the source gave rows " + std::to_string(r0) + ".." +
                                    std::to_string(r1 - 1) + " differently the second time");
    });
    return t;
}

#define TESSEL_INSTANTIATE(V, I)                                                                          \
    template TiledEll<V, I> tiled_ell_from_row_blocks(size_type, size_type, const RowBlockSource<V, I>&, \
                                                      const TiledEllConfig&, bool);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
