// The cuda executor's schedule: buffer offsets, and each chunk's GEMMs grouped into calls.
#include "apps/ccsd_abcd/executor/cuda_schedule.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <span>
#include <tuple>
#include <utility>

namespace tessel::abcd {

namespace {

size_type round_up(size_type x) { return (x + tile_alignment - 1) / tile_alignment * tile_alignment; }

size_type tile_values(const TileShape& s, const Tiling& rows, const Tiling& cols, size_type pos) {
    return rows.size(s.row_of(pos)) * cols.size(s.col_idx()[pos]);
}

// One GEMM before grouping: its stream, wave and round, shape, operands (C's offset filled in
// once C is laid out), its C tile, and whether it is the first of its C tile in the block (it
// overwrites C).
struct Gemm {
    int stream = 0;
    std::size_t wave = 0;
    size_type round = 0, m = 0, n = 0, k = 0;
    bool first = false;
    std::size_t b = 0, c = 0;  // indices into the block's B and C tiles
    GemmOperands at;
    double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

int stream_of(std::size_t c_tile, int streams) { return static_cast<int>(c_tile % static_cast<std::size_t>(streams)); }

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
            g.stream = stream_of(cslot, streams);
            g.round = seen[cslot]++;
            g.first = !touched[cslot];
            touched[cslot] = 1;
            g.m = p.m_tiling.size(i);
            g.n = p.n_tiling.size(col);
            g.k = p.k_tiling.size(k);
            g.b = bslot;
            g.c = cslot;
            g.at = {cs.a_at[t], bs.b_offset[bslot], 0};
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

// The block's C tiles by (row rank, position): the order in which waves take them.
std::vector<std::size_t> order_c_by_row(const Plan& plan, const BlockPlan& b, const std::vector<size_type>& rank) {
    const TileShape& shape_c = plan.product.c_shape;
    std::vector<std::size_t> order(b.c_tiles.size());
    for (std::size_t c = 0; c < order.size(); ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return rank[static_cast<std::size_t>(shape_c.row_of(b.c_tiles[x]))] <
               rank[static_cast<std::size_t>(shape_c.row_of(b.c_tiles[y]))];
    });
    return order;
}

// The part's waves: on each stream its C tiles in row order (`row_pos`: each tile's place in
// it), cut where a wave has `flops_per_wave`. Sets each GEMM's wave; returns, per stream,
// its flops in the part up to the end of each wave (when the wave should end).
std::vector<std::vector<double>> assign_waves(std::vector<Gemm>& gemms, const std::vector<std::size_t>& row_pos,
                                              int streams, double flops_per_wave) {
    std::map<std::size_t, std::pair<std::size_t, double>> tiles;  // row place -> (C tile, its flops here)
    for (const Gemm& g : gemms) {
        auto& t = tiles[row_pos[g.c]];
        t.first = g.c;
        t.second += g.flops();
    }
    const auto n = static_cast<std::size_t>(streams);
    std::vector<std::vector<double>> ends(n);
    std::vector<double> open(n, 0.0), total(n, 0.0);  // per stream: the last wave's flops, all so far
    std::map<std::size_t, std::size_t> wave_of;       // C tile -> its wave
    for (const auto& [place, tile] : tiles) {
        const auto s = static_cast<std::size_t>(stream_of(tile.first, streams));
        if (ends[s].empty() || open[s] >= flops_per_wave) {
            ends[s].push_back(0.0);
            open[s] = 0.0;
        }
        open[s] += tile.second;
        total[s] += tile.second;
        ends[s].back() = total[s];
        wave_of[tile.first] = ends[s].size() - 1;
    }
    for (Gemm& g : gemms) g.wave = wave_of[g.c];
    return ends;
}

// Where a C tile becomes final in its block's last chunk: the part, stream and wave of its last
// GEMM there, and that wave's end; part -1: before the chunk (no GEMM of it writes the tile).
struct Final {
    std::ptrdiff_t part = -1;
    double end = 0.0;
    int stream = 0;
    std::size_t wave = 0;
    auto key() const { return std::tie(part, end, stream, wave); }
};

// The last chunk's parts (their GEMMs, waves set; `ends` as assign_waves gives them): the
// block's C tiles in the order they go down (by Final, then row order) and each part's sends.
std::vector<std::size_t> plan_sends(std::span<const std::vector<Gemm>> gemms,
                                    const std::vector<std::vector<std::vector<double>>>& ends,
                                    const std::vector<std::size_t>& row_order, std::vector<ChunkPart>& parts) {
    std::vector<Final> final(row_order.size());
    for (std::size_t q = 0; q < gemms.size(); ++q)
        for (const Gemm& g : gemms[q])
            final[g.c] = {static_cast<std::ptrdiff_t>(q), ends[q][static_cast<std::size_t>(g.stream)][g.wave], g.stream,
                          g.wave};
    std::vector<std::size_t> order = row_order;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return final[x].key() < final[y].key(); });
    // Tiles final before the chunk: every stream's first wave, in the first part with one.
    const auto first = std::find_if(parts.begin(), parts.end(), [](const ChunkPart& q) { return q.waves > 0; });
    for (std::size_t x = 0; x < order.size() && first != parts.end() && final[order[x]].part < 0; ++x) {
        if (first->sends.empty()) first->sends.push_back({-1, 0, 0});
        first->sends.back().c_end = x + 1;
    }
    for (std::size_t x = 0; x < order.size(); ++x) {
        const Final& f = final[order[x]];
        if (f.part < 0) continue;
        auto& sends = parts[static_cast<std::size_t>(f.part)].sends;
        if (sends.empty() || sends.back().stream != f.stream || sends.back().wave != f.wave)
            sends.push_back({f.stream, f.wave, 0});
        sends.back().c_end = x + 1;
    }
    return order;
}

// Calls in issue order: wave by wave, round by round, stream by stream, one call per shape.
void group_calls(std::vector<Gemm>& gemms, ChunkPart& cs, DeviceSchedule& d) {
    const auto key = [](const Gemm& g) { return std::tie(g.wave, g.round, g.stream, g.first, g.m, g.n, g.k); };
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
            call.wave = gemms[g].wave;
            cs.calls.push_back(call);
        }
        ++cs.calls.back().count;
        d.operands.push_back(gemms[g].at);
    }
    d.gemms += static_cast<size_type>(gemms.size());
    d.calls += static_cast<size_type>(cs.calls.size());
}

// The block's B tiles from offset 0 of its buffer; returns their end.
size_type lay_out_b(const Problem& p, const BlockPlan& b, BlockSchedule& bs) {
    size_type at = 0;
    for (size_type pos : b.b_tiles) {
        bs.b_offset.push_back(at);
        at += round_up(tile_values(p.b_shape, p.k_tiling, p.n_tiling, pos));
    }
    return at;
}

// The jobs that make the block's B tiles on the device, part by part: each tile in the first part
// (chunk after chunk) whose GEMMs read it (`gemms`: per part, chunk after chunk).
void plan_b_jobs(const Problem& p, const BlockPlan& b, BlockSchedule& bs, const std::vector<std::vector<Gemm>>& gemms,
                 DeviceSchedule& d) {
    std::vector<char> made(b.b_tiles.size(), 0);
    std::size_t q = 0;  // over the block's parts, chunk after chunk
    for (ChunkSchedule& cs : bs.chunks)
        for (ChunkPart& part : cs.parts) {
            part.b_first = static_cast<size_type>(d.b_tiles.size());
            std::vector<std::size_t> fresh;
            for (const Gemm& g : gemms[q++])
                if (!made[g.b]) {
                    made[g.b] = 1;
                    fresh.push_back(g.b);
                }
            std::sort(fresh.begin(), fresh.end());
            for (std::size_t x : fresh) {
                const size_type pos = b.b_tiles[x];
                const size_type r = p.b_shape.row_of(pos), c = p.b_shape.col_idx()[pos];
                d.b_tiles.push_back({p.k_tiling.offset(r), p.n_tiling.offset(c), p.k_tiling.size(r), p.n_tiling.size(c),
                                     bs.b_offset[x]});
                part.b_largest = std::max(part.b_largest, p.k_tiling.size(r) * p.n_tiling.size(c));
            }
            part.b_count = static_cast<size_type>(d.b_tiles.size()) - part.b_first;
        }
}

// The block's C tiles from `at` in c_order; C's offsets into every GEMM, then the calls.
void lay_out_c(const Problem& p, const Plan& plan, const BlockPlan& b, size_type at, BlockSchedule& bs,
               std::vector<std::vector<Gemm>>& gemms, DeviceSchedule& d) {
    bs.c_begin = at;
    bs.c_offset.assign(b.c_tiles.size(), 0);
    for (std::size_t c : bs.c_order) {
        bs.c_offset[c] = at;
        at += round_up(tile_values(plan.product.c_shape, p.m_tiling, p.n_tiling, b.c_tiles[c]));
    }
    bs.end = at;
    d.block_values = std::max(d.block_values, at);
    std::size_t q = 0;  // over the block's parts, chunk after chunk
    for (ChunkSchedule& cs : bs.chunks)
        for (ChunkPart& part : cs.parts) {
            for (Gemm& g : gemms[q]) g.at.c = bs.c_offset[g.c];
            group_calls(gemms[q++], part, d);
        }
}

}  // namespace

DeviceSchedule schedule_device(const Problem& p, const Plan& plan, const ProcessPlan& process,
                               const std::vector<std::size_t>& blocks, int streams, size_type part_bytes,
                               double flops_per_wave) {
    DeviceSchedule d;
    d.a_resident = process.a_resident;
    std::vector<size_type> layout(static_cast<std::size_t>(p.a_shape.nnz()), -1);
    const size_type part_values = std::max<size_type>(1, part_bytes / value_bytes(p.precision));
    int chunk_number = 0;  // over the device's blocks: chunk buffers alternate
    for (std::size_t bi : blocks) {
        const BlockPlan& b = process.blocks[bi];
        BlockSchedule bs;
        const size_type b_end = lay_out_b(p, b, bs);
        const std::vector<size_type> rank =
            b.chunks.empty() ? std::vector<size_type>(static_cast<std::size_t>(p.a_shape.rows()), -1)
                             : rank_rows(p, b.chunks.back());
        const std::vector<std::size_t> row_order = order_c_by_row(plan, b, rank);
        std::vector<std::size_t> row_pos(row_order.size());
        for (std::size_t x = 0; x < row_order.size(); ++x) row_pos[row_order[x]] = x;
        bs.c_order = row_order;  // no chunk: no GEMM, no send
        std::vector<std::vector<Gemm>> gemms;  // per part, chunk after chunk
        std::vector<char> touched(b.c_tiles.size(), 0);  // C tiles a GEMM has written so far
        for (std::size_t n = 0; n < b.chunks.size(); ++n) {
            const ChunkPlan& ch = b.chunks[n];
            ChunkSchedule cs;
            cs.buffer = chunk_number++ % 2;
            lay_out_chunk(p, ch, rank, cs, part_values);
            place_in_a_layout(p, ch, cs, d.a_resident, layout, d.a_values);
            if (!d.a_resident) d.chunk_values[cs.buffer] = std::max(d.chunk_values[cs.buffer], cs.values);
            std::vector<std::vector<std::vector<double>>> ends;  // per part of this chunk
            for (ChunkPart& part : cs.parts) {
                gemms.push_back(part_gemms(p, plan, b, bs, ch, cs, part.first, part.last, streams, touched));
                ends.push_back(assign_waves(gemms.back(), row_pos, streams, flops_per_wave));
                for (const auto& e : ends.back()) part.waves = std::max(part.waves, e.size());
            }
            if (n + 1 == b.chunks.size()) {
                const std::span<const std::vector<Gemm>> last(gemms.data() + gemms.size() - cs.parts.size(),
                                                              cs.parts.size());
                bs.c_order = plan_sends(last, ends, row_order, cs.parts);
                for (const ChunkPart& part : cs.parts)
                    if (!part.sends.empty()) d.max_waves = std::max(d.max_waves, part.waves);
            }
            bs.chunks.push_back(std::move(cs));
        }
        plan_b_jobs(p, b, bs, gemms, d);
        lay_out_c(p, plan, b, b_end, bs, gemms, d);
        bs.zero_c = std::find(touched.begin(), touched.end(), 0) != touched.end();
        d.blocks.push_back(std::move(bs));
    }
    return d;
}

}  // namespace tessel::abcd
