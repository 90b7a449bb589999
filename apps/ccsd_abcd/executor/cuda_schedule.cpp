// The cuda executor's schedule: buffer offsets, and each chunk's GEMMs grouped into calls.
#include "apps/ccsd_abcd/executor/cuda_schedule.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace tessel::abcd {

namespace {

size_type round_up(size_type x) { return (x + tile_alignment - 1) / tile_alignment * tile_alignment; }

size_type tile_values(const TileShape& s, const Tiling& rows, const Tiling& cols, size_type pos) {
    return rows.size(s.row_of(pos)) * cols.size(s.col_idx()[pos]);
}

// One GEMM before grouping: its stream, round, shape, operands, and whether it is the first of
// its C tile in the block (it overwrites C).
struct Gemm {
    int stream = 0;
    size_type round = 0, m = 0, n = 0, k = 0;
    bool first = false;
    GemmOperands at;
};

// The GEMMs of A tiles order[first .. last) of chunk `ch` of block `b`: C(i, c) += A(i, k)·B(k, c)
// with the block's B tiles of row k; each C tile's stream and the round of each of its GEMMs.
// `touched` marks the block's C tiles that an earlier GEMM (an earlier part or chunk) wrote:
// a C tile's GEMMs run on one stream in issue order, so its first one may overwrite it.
std::vector<Gemm> part_gemms(const Problem& p, const Plan& plan, const BlockPlan& b, const BlockSchedule& bs,
                             const ChunkPlan& ch, const ChunkSchedule& cs, std::size_t first, std::size_t last,
                             int streams, std::vector<char>& touched) {
    const TileShape& as = p.a_shape;
    const TileShape& shape_b = p.b_shape;
    const TileShape& shape_c = plan.product.c_shape;
    std::vector<size_type> seen(b.c_tiles.size(), 0);  // GEMMs of each C tile so far in this part
    std::vector<Gemm> out;
    for (std::size_t x = first; x < last; ++x) {
        const std::size_t t = cs.order[x];
        const size_type apos = ch.a_tiles[t];
        const size_type i = as.row_of(apos), k = as.col_idx()[apos];
        // The block's B tiles of row k: b_tiles is sorted, so they are contiguous.
        auto lo = std::lower_bound(b.b_tiles.begin(), b.b_tiles.end(), shape_b.row_ptr()[k]);
        auto hi = std::lower_bound(b.b_tiles.begin(), b.b_tiles.end(), shape_b.row_ptr()[k + 1]);
        for (auto it = lo; it != hi; ++it) {
            const auto bslot = static_cast<std::size_t>(it - b.b_tiles.begin());
            const size_type col = shape_b.col_idx()[*it];
            const size_type cpos = shape_c.find(i, col);
            const auto cslot = static_cast<std::size_t>(std::lower_bound(b.c_tiles.begin(), b.c_tiles.end(), cpos) -
                                                        b.c_tiles.begin());
            Gemm g;
            g.stream = static_cast<int>(cslot % static_cast<std::size_t>(streams));
            g.round = seen[cslot]++;
            g.first = !touched[cslot];
            touched[cslot] = 1;
            g.m = p.m_tiling.size(i);
            g.n = p.n_tiling.size(col);
            g.k = p.k_tiling.size(k);
            g.at = {cs.a_at[t], bs.b_offset[bslot], bs.c_offset[cslot]};
            out.push_back(g);
        }
    }
    return out;
}

// The rows of A ranked by their values in the block's last chunk, smallest first (-1: rows
// with no tile there, whose C is final before it). The chunks go row by row in this order, so
// that the first C tiles final (and sent down while the other rows compute) are those of the
// smallest row: the copies of C, the bound of a block, wait only for its A and GEMMs.
std::vector<size_type> rank_rows(const Problem& p, const ChunkPlan& last) {
    const TileShape& as = p.a_shape;
    std::vector<size_type> values(static_cast<std::size_t>(as.rows()), -1);
    for (size_type pos : last.a_tiles) {
        auto& v = values[static_cast<std::size_t>(as.row_of(pos))];
        v = std::max<size_type>(v, 0) + tile_values(as, p.m_tiling, p.k_tiling, pos);
    }
    std::vector<size_type> rows;
    for (size_type i = 0; i < as.rows(); ++i)
        if (values[static_cast<std::size_t>(i)] >= 0) rows.push_back(i);
    std::stable_sort(rows.begin(), rows.end(), [&](size_type x, size_type y) {
        return values[static_cast<std::size_t>(x)] < values[static_cast<std::size_t>(y)];
    });
    std::vector<size_type> rank(values.size(), -1);
    for (std::size_t r = 0; r < rows.size(); ++r) rank[static_cast<std::size_t>(rows[r])] = static_cast<size_type>(r);
    return rank;
}

// The chunk's tiles by (row rank, column), packed in that order, cut into parts of about
// `part_values` (a part ends at a tile's end; the first also where its first row ends, so that
// row's C can go down before the next part is in).
void lay_out_chunk(const Problem& p, const ChunkPlan& ch, const std::vector<size_type>& rank, ChunkSchedule& cs,
                   size_type part_values) {
    const TileShape& as = p.a_shape;
    const auto row_rank = [&](std::size_t t) { return rank[static_cast<std::size_t>(as.row_of(ch.a_tiles[t]))]; };
    cs.order.resize(ch.a_tiles.size());
    for (std::size_t t = 0; t < cs.order.size(); ++t) cs.order[t] = t;
    std::sort(cs.order.begin(), cs.order.end(), [&](std::size_t x, std::size_t y) {
        return std::pair(row_rank(x), as.col_idx()[ch.a_tiles[x]]) <
               std::pair(row_rank(y), as.col_idx()[ch.a_tiles[y]]);
    });
    cs.a_offset.assign(ch.a_tiles.size(), 0);
    for (std::size_t x = 0; x < cs.order.size(); ++x) {
        const std::size_t t = cs.order[x];
        const bool first_row_ends = cs.parts.size() == 1 && as.row_of(ch.a_tiles[t]) !=
                                                                 as.row_of(ch.a_tiles[cs.order[cs.parts.back().first]]);
        if (cs.parts.empty() || cs.values - cs.parts.back().begin >= part_values || first_row_ends) {
            if (!cs.parts.empty()) {
                cs.parts.back().end = cs.values;
                cs.parts.back().last = x;
            }
            ChunkPart part;
            part.begin = cs.values;
            part.first = x;
            cs.parts.push_back(part);
        }
        cs.a_offset[t] = cs.values;
        cs.values += round_up(tile_values(as, p.m_tiling, p.k_tiling, ch.a_tiles[t]));
    }
    if (!cs.parts.empty()) {
        cs.parts.back().end = cs.values;
        cs.parts.back().last = cs.order.size();
    }
}

// Each tile of the chunk in the device's A layout (`layout`: per A position, -1 until its first
// use; `values`: the layout's end), the part's fresh tiles, where the GEMMs read A, and (A not
// resident) the copies from the host's layout into the chunk buffer.
void place_in_a_layout(const Problem& p, const ChunkPlan& ch, ChunkSchedule& cs, bool resident,
                       std::vector<size_type>& layout, size_type& values) {
    const TileShape& as = p.a_shape;
    cs.a_layout.assign(ch.a_tiles.size(), 0);
    for (ChunkPart& part : cs.parts) {
        part.fresh_begin = values;
        for (std::size_t x = part.first; x < part.last; ++x) {
            const std::size_t t = cs.order[x];
            const size_type pos = ch.a_tiles[t];
            const size_type v = round_up(tile_values(as, p.m_tiling, p.k_tiling, pos));
            auto& at = layout[static_cast<std::size_t>(pos)];
            if (at < 0) {
                at = values;
                values += v;
                part.fresh.push_back(x);
            }
            cs.a_layout[t] = at;
            if (resident) continue;
            const size_type to = cs.a_offset[t];
            if (!part.copies.empty() && part.copies.back().from + part.copies.back().values == at &&
                part.copies.back().to + part.copies.back().values == to)
                part.copies.back().values += v;
            else
                part.copies.push_back({at, to, v});
        }
        part.fresh_end = values;
    }
    cs.a_at = resident ? cs.a_layout : cs.a_offset;
}

// The block's C tiles by (row rank, position): the order they become final in, and are laid out.
std::vector<std::size_t> order_c(const Plan& plan, const BlockPlan& b, const std::vector<size_type>& rank) {
    const TileShape& shape_c = plan.product.c_shape;
    std::vector<std::size_t> order(b.c_tiles.size());
    for (std::size_t c = 0; c < order.size(); ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return rank[static_cast<std::size_t>(shape_c.row_of(b.c_tiles[x]))] <
               rank[static_cast<std::size_t>(shape_c.row_of(b.c_tiles[y]))];
    });
    return order;
}

// Last chunk: after each part, the C tiles of the rows ranked before the next part's first row
// are final (bs.c_order[0 .. c_final)); after the last part, all of them.
void mark_final_c(const Problem& p, const Plan& plan, const BlockPlan& b, const BlockSchedule& bs, const ChunkPlan& ch,
                  const std::vector<size_type>& rank, ChunkSchedule& cs) {
    const TileShape& shape_c = plan.product.c_shape;
    const auto rank_of_c = [&](std::size_t c) { return rank[static_cast<std::size_t>(shape_c.row_of(b.c_tiles[c]))]; };
    for (std::size_t q = 0; q < cs.parts.size(); ++q) {
        ChunkPart& part = cs.parts[q];
        if (q + 1 == cs.parts.size()) {
            part.c_final = b.c_tiles.size();
            continue;
        }
        const size_type next_row = p.a_shape.row_of(ch.a_tiles[cs.order[cs.parts[q + 1].first]]);
        const size_type next = rank[static_cast<std::size_t>(next_row)];
        const auto final_end = std::partition_point(bs.c_order.begin(), bs.c_order.end(),
                                                    [&](std::size_t c) { return rank_of_c(c) < next; });
        part.c_final = static_cast<std::size_t>(final_end - bs.c_order.begin());
    }
}

// Calls in issue order: round by round, stream by stream, one call per shape.
void group_calls(std::vector<Gemm>& gemms, ChunkPart& cs, DeviceSchedule& d) {
    const auto key = [](const Gemm& g) { return std::tie(g.round, g.stream, g.first, g.m, g.n, g.k); };
    std::stable_sort(gemms.begin(), gemms.end(), [&](const Gemm& x, const Gemm& y) { return key(x) < key(y); });
    for (std::size_t g = 0; g < gemms.size(); ++g) {
        if (g == 0 || key(gemms[g]) != key(gemms[g - 1])) {
            GemmCall call;
            call.stream = gemms[g].stream;
            call.m = gemms[g].m;
            call.n = gemms[g].n;
            call.k = gemms[g].k;
            call.first = static_cast<size_type>(d.operands.size());
            call.overwrite = gemms[g].first;
            cs.calls.push_back(call);
        }
        ++cs.calls.back().count;
        d.operands.push_back(gemms[g].at);
    }
    d.gemms += static_cast<size_type>(gemms.size());
    d.calls += static_cast<size_type>(cs.calls.size());
}

}  // namespace

DeviceSchedule schedule_device(const Problem& p, const Plan& plan, const ProcessPlan& process,
                               const std::vector<std::size_t>& blocks, int streams, size_type part_bytes) {
    DeviceSchedule d;
    d.a_resident = process.a_resident;
    std::vector<size_type> layout(static_cast<std::size_t>(p.a_shape.nnz()), -1);
    int chunk_number = 0;  // over the device's blocks: chunk buffers alternate
    for (std::size_t bi : blocks) {
        const BlockPlan& b = process.blocks[bi];
        BlockSchedule bs;
        size_type at = 0;
        bs.b_jobs = static_cast<size_type>(d.b_tiles.size());
        for (size_type pos : b.b_tiles) {
            const size_type v = tile_values(p.b_shape, p.k_tiling, p.n_tiling, pos);
            const size_type r = p.b_shape.row_of(pos), c = p.b_shape.col_idx()[pos];
            d.b_tiles.push_back({p.k_tiling.offset(r), p.n_tiling.offset(c), p.k_tiling.size(r), p.n_tiling.size(c), at});
            bs.b_offset.push_back(at);
            bs.b_largest = std::max(bs.b_largest, v);
            at += round_up(v);
        }
        const std::vector<size_type> rank =
            b.chunks.empty() ? std::vector<size_type>(static_cast<std::size_t>(p.a_shape.rows()), -1)
                             : rank_rows(p, b.chunks.back());
        bs.c_order = order_c(plan, b, rank);
        bs.c_begin = at;
        bs.c_offset.assign(b.c_tiles.size(), 0);
        for (std::size_t c : bs.c_order) {
            bs.c_offset[c] = at;
            at += round_up(tile_values(plan.product.c_shape, p.m_tiling, p.n_tiling, b.c_tiles[c]));
        }
        bs.end = at;
        d.block_values = std::max(d.block_values, at);
        const size_type part_values = std::max<size_type>(1, part_bytes / value_bytes(p.precision));
        std::vector<char> touched(b.c_tiles.size(), 0);  // C tiles a GEMM has written so far
        for (std::size_t n = 0; n < b.chunks.size(); ++n) {
            const ChunkPlan& ch = b.chunks[n];
            ChunkSchedule cs;
            cs.buffer = chunk_number++ % 2;
            lay_out_chunk(p, ch, rank, cs, part_values);
            if (n + 1 == b.chunks.size()) mark_final_c(p, plan, b, bs, ch, rank, cs);
            place_in_a_layout(p, ch, cs, d.a_resident, layout, d.a_values);
            if (!d.a_resident) d.chunk_values[cs.buffer] = std::max(d.chunk_values[cs.buffer], cs.values);
            for (ChunkPart& part : cs.parts) {
                std::vector<Gemm> gemms =
                    part_gemms(p, plan, b, bs, ch, cs, part.first, part.last, streams, touched);
                group_calls(gemms, part, d);
            }
            bs.chunks.push_back(std::move(cs));
        }
        bs.zero_c = std::find(touched.begin(), touched.end(), 0) != touched.end();
        d.blocks.push_back(std::move(bs));
    }
    return d;
}

}  // namespace tessel::abcd
