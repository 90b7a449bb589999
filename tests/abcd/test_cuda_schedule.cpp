// The cuda executor's schedule (plain C++, every build): every tile GEMM in exactly one call,
// a call's GEMMs of one shape and distinct C tiles, a C tile's GEMMs on one stream in their
// chunk order, tiles laid out apart and aligned, each C tile sent down once no GEMM is left to
// write it.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <tuple>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/executor/cuda_schedule.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"

using namespace tessel;
using namespace tessel::abcd;

namespace {
Problem uniform_synthetic(double density_b) {
    SyntheticOptions o;
    o.m = 96;
    o.n = 256;
    o.tile_min = 16;  // one tile size: rounds batch many GEMMs
    o.tile_max = 16;
    o.density_a = 0.5;
    o.density_b = density_b;
    o.seed = 4;
    return synthetic_problem(o);
}

// Irregular tiles (20..90): rows of A of different sizes, GEMMs of many shapes.
Problem irregular_synthetic() {
    SyntheticOptions o;
    o.m = 400;
    o.n = 600;
    o.tile_min = 20;
    o.tile_max = 90;
    o.density_a = 0.6;
    o.density_b = 0.4;
    o.seed = 3;
    return synthetic_problem(o);
}

std::vector<std::size_t> all_blocks(const ProcessPlan& pp) {
    std::vector<std::size_t> b(pp.blocks.size());
    for (std::size_t x = 0; x < b.size(); ++x) b[x] = x;
    return b;
}

// Where each C tile of a block goes down: (part, send) of the last chunk by place in c_order;
// (-1, -1) before the first send. Checks that the sends cover c_order in order, to its end.
std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>> sent_by(const BlockSchedule& bs) {
    std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>> by(bs.c_order.size(), {-1, -1});
    if (bs.chunks.empty()) return by;
    const ChunkSchedule& cs = bs.chunks.back();
    std::size_t end = 0;
    for (std::size_t q = 0; q < cs.parts.size(); ++q)
        for (std::size_t x = 0; x < cs.parts[q].sends.size(); ++x) {
            const CSend& send = cs.parts[q].sends[x];
            CHECK(send.c_end > end);
            CHECK(send.wave < cs.parts[q].waves);
            for (std::size_t c = end; c < send.c_end; ++c) by[c] = {std::ptrdiff_t(q), std::ptrdiff_t(x)};
            end = send.c_end;
        }
    if (end > 0) CHECK(end == bs.c_order.size());
    return by;
}

// Each GEMM of part q of the block's last chunk goes before its C tile's send: a later part's, or
// this part's send of the GEMM's stream and wave.
void check_part_sends(const DeviceSchedule& d, const BlockSchedule& bs, std::size_t q,
                      const std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>>& by,
                      const std::map<size_type, std::size_t>& place_of_c) {
    const ChunkPart& part = bs.chunks.back().parts[q];
    for (const GemmCall& call : part.calls) {
        for (size_type g = call.first; g < call.first + call.count; ++g) {
            const auto [sq, sx] = by[place_of_c.at(d.operands[static_cast<std::size_t>(g)].c)];
            REQUIRE(sq >= std::ptrdiff_t(q));
            if (sq > std::ptrdiff_t(q)) continue;
            const CSend& send = part.sends[static_cast<std::size_t>(sx)];
            CHECK((send.stream == call.stream && send.wave == call.wave));
        }
    }
}
}  // namespace

TEST_CASE("the cuda schedule: each GEMM once, calls of one shape and distinct C, C tiles on one stream, the first "
          "GEMM of each C tile overwrites it",
          "[abcd]") {
    const Problem p = uniform_synthetic(0.4);
    const Plan plan = inspect(p, test::one_process(size_type(96) << 10));  // several blocks and chunks
    const ProcessPlan& pp = plan.processes[0];
    REQUIRE(pp.blocks.size() > 1);
    const DeviceSchedule d = schedule_device(p, plan, pp, all_blocks(pp), 4, 4096);  // parts of a few tiles
    CHECK(d.gemms == pp.gemms);
    CHECK(d.operands.size() == static_cast<std::size_t>(pp.gemms));
    // One tile size: batched, in parts as large as the chunks.
    CHECK(schedule_device(p, plan, pp, all_blocks(pp), 4).calls < pp.gemms);
    std::set<size_type> covered;
    bool several_parts = false, several_chunk_sends = false;
    for (std::size_t bi = 0; bi < d.blocks.size(); ++bi) {
        const BlockSchedule& bs = d.blocks[bi];
        const BlockPlan& b = pp.blocks[bi];
        CHECK(bs.chunks.size() == b.chunks.size());
        for (size_type off : bs.b_offset) CHECK(off % tile_alignment == 0);
        for (size_type off : bs.c_offset) CHECK((off >= bs.c_begin && off < bs.end && off % tile_alignment == 0));
        std::map<size_type, int> stream_of_c;
        std::set<size_type> written;  // C tiles (offsets) a call has written so far, in issue order
        std::set<size_type> b_made;   // B tiles (offsets) made so far, part by part
        for (std::size_t n = 0; n < bs.chunks.size(); ++n) {
            const ChunkSchedule& cs = bs.chunks[n];
            CHECK(cs.values <= d.chunk_values[cs.buffer]);
            REQUIRE(!cs.parts.empty());
            several_parts = several_parts || cs.parts.size() > 1;
            // Parts cover the chunk in order; only the last chunk's parts send C.
            CHECK(cs.parts.front().begin == 0);
            CHECK(cs.parts.back().end == cs.values);
            CHECK(cs.parts.back().last == cs.order.size());
            const bool last_chunk = n + 1 == bs.chunks.size();
            for (std::size_t q = 0; q < cs.parts.size(); ++q) {
                const ChunkPart& part = cs.parts[q];
                if (q > 0) CHECK((part.begin == cs.parts[q - 1].end && part.first == cs.parts[q - 1].last));
                // B: each tile made once, at its place, before the first part that reads it.
                for (size_type j = part.b_first; j < part.b_first + part.b_count; ++j) {
                    const DeviceSchedule::BTile& t = d.b_tiles[static_cast<std::size_t>(j)];
                    CHECK(b_made.insert(t.offset).second);
                    CHECK(std::find(bs.b_offset.begin(), bs.b_offset.end(), t.offset) != bs.b_offset.end());
                    CHECK(t.rows * t.cols <= part.b_largest);
                }
                for (std::size_t x = 0; x < part.calls.size(); ++x) {
                    const GemmCall& call = part.calls[x];
                    CHECK(call.wave < part.waves);  // issued wave by wave
                    if (x > 0) CHECK(call.wave >= part.calls[x - 1].wave);
                    std::set<size_type> cs_in_call;
                    for (size_type x = call.first; x < call.first + call.count; ++x) {
                        CHECK(covered.insert(x).second);
                        const GemmOperands& o = d.operands[static_cast<std::size_t>(x)];
                        CHECK(cs_in_call.insert(o.c).second);  // no two problems of a call on one C
                        const auto [it, fresh] = stream_of_c.emplace(o.c, call.stream);
                        CHECK(it->second == call.stream);
                        // Beta = 0 exactly for a C tile's first GEMM (the same stream runs the rest after).
                        CHECK(call.overwrite == written.insert(o.c).second);
                        CHECK((o.a >= part.begin && o.a + call.m * call.k <= part.end));
                        CHECK(o.b + call.k * call.n <= bs.c_begin);
                        CHECK(b_made.count(o.b) == 1);
                    }
                }
                if (!last_chunk) CHECK(part.sends.empty());
                if (last_chunk && !part.sends.empty()) CHECK(part.waves <= d.max_waves);
            }
        }
        // Every C tile a GEMM of the last chunk writes goes down after its last such GEMM.
        const auto by = sent_by(bs);
        std::map<size_type, std::size_t> place_of_c;  // C offset -> place in c_order
        for (std::size_t x = 0; x < bs.c_order.size(); ++x) place_of_c[bs.c_offset[bs.c_order[x]]] = x;
        if (!bs.chunks.empty())
            for (std::size_t q = 0; q < bs.chunks.back().parts.size(); ++q)
                check_part_sends(d, bs, q, by, place_of_c);
        // A send waits for one stream only when every GEMM of its tiles ran there (in any chunk);
        // the tiles of earlier chunks only go first, after every stream's first wave.
        bool first_send = true;
        for (std::size_t x = 0; x < bs.c_order.size(); ++x) {
            const auto [sq, sx] = by[x];
            if (sq < 0) continue;
            const auto& sends = bs.chunks.back().parts[static_cast<std::size_t>(sq)].sends;
            const CSend& send = sends[static_cast<std::size_t>(sx)];
            const auto at = stream_of_c.find(bs.c_offset[bs.c_order[x]]);
            if (send.stream >= 0)
                CHECK((at != stream_of_c.end() && at->second == send.stream));
            else
                CHECK((first_send && send.wave == 0));
            first_send = first_send && send.stream < 0;
        }
        if (bs.chunks.size() > 1 && by.front().first >= 0) several_chunk_sends = true;
        // C is zeroed first only when a C tile has no GEMM to write it.
        CHECK(bs.zero_c == (written.size() < b.c_tiles.size()));
        // C lies in the order it becomes final: c_order is a permutation, laid out one after another.
        std::vector<std::size_t> sorted = bs.c_order;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t c = 0; c < sorted.size(); ++c) CHECK(sorted[c] == c);
        for (std::size_t x = 1; x < bs.c_order.size(); ++x)
            CHECK(bs.c_offset[bs.c_order[x]] > bs.c_offset[bs.c_order[x - 1]]);
    }
    CHECK(several_parts);
    CHECK(several_chunk_sends);
    CHECK(covered.size() == d.operands.size());
}

TEST_CASE("the cuda schedule: the last chunk starts with its smallest row of A, alone in the first part", "[abcd]") {
    // Irregular tiles: rows of A of different sizes; one block, one chunk, parts of 1 MiB.
    const Problem p = irregular_synthetic();
    const Plan plan = inspect(p, test::one_process(size_type(1) << 30));
    const ProcessPlan& pp = plan.processes[0];
    REQUIRE(pp.blocks.size() == 1);
    const DeviceSchedule d = schedule_device(p, plan, pp, all_blocks(pp), 4, size_type(1) << 20);
    const BlockPlan& b = pp.blocks[0];
    const ChunkPlan& last = b.chunks.back();
    const ChunkSchedule& cs = d.blocks[0].chunks.back();
    REQUIRE(cs.parts.size() > 2);
    // A values per row of the chunk; the first part holds exactly one row, the smallest.
    std::map<size_type, size_type> row_values;
    for (size_type pos : last.a_tiles)
        row_values[p.a_shape.row_of(pos)] +=
            p.m_tiling.size(p.a_shape.row_of(pos)) * p.k_tiling.size(p.a_shape.col_idx()[pos]);
    REQUIRE(row_values.size() > 2);
    std::set<size_type> first_rows;
    for (std::size_t x = cs.parts[0].first; x < cs.parts[0].last; ++x)
        first_rows.insert(p.a_shape.row_of(last.a_tiles[cs.order[x]]));
    REQUIRE(first_rows.size() == 1);
    size_type smallest = row_values.begin()->second;
    for (const auto& [row, v] : row_values) smallest = std::min(smallest, v);
    CHECK(row_values[*first_rows.begin()] == smallest);
    // The first part's sends take its row's C tiles, and only they (rows with no A tile in the
    // chunk would go first: there are none here).
    REQUIRE(!cs.parts[0].sends.empty());
    const std::size_t c_first = cs.parts[0].sends.back().c_end;
    REQUIRE(c_first > 0);
    for (std::size_t x = 0; x < d.blocks[0].c_order.size(); ++x) {
        const size_type row = plan.product.c_shape.row_of(b.c_tiles[d.blocks[0].c_order[x]]);
        CHECK((row == *first_rows.begin()) == (x < c_first));
    }
}

TEST_CASE("the cuda schedule's A layout: each A tile once in order of first use, read there when resident, "
          "copied from there into each chunk when not", "[abcd]") {
    const Problem p = uniform_synthetic(0.4);
    const size_type smallest = size_type(96) << 10;
    const Plan chunked = inspect(p, test::one_process(smallest));
    const Plan resident = inspect(p, test::one_process(std::max(smallest, 2 * chunked.processes[0].a_device_bytes)));
    REQUIRE((!chunked.processes[0].a_resident && chunked.processes[0].blocks.size() > 1));
    REQUIRE((resident.processes[0].a_resident && resident.processes[0].blocks.size() > 1));
    for (const Plan* plan : {&chunked, &resident}) {
        const ProcessPlan& pp = plan->processes[0];
        const DeviceSchedule d = schedule_device(p, *plan, pp, all_blocks(pp), 4, 4096);
        CHECK(d.a_resident == pp.a_resident);
        std::map<size_type, size_type> place;  // A position -> its place in the layout
        size_type end = 0;
        for (std::size_t bi = 0; bi < d.blocks.size(); ++bi)
            for (std::size_t n = 0; n < d.blocks[bi].chunks.size(); ++n) {
                const ChunkSchedule& cs = d.blocks[bi].chunks[n];
                const ChunkPlan& ch = pp.blocks[bi].chunks[n];
                for (const ChunkPart& part : cs.parts) {
                    CHECK(part.fresh_begin == end);  // fresh tiles follow each other
                    for (std::size_t x : part.fresh) {
                        const std::size_t t = cs.order[x];
                        CHECK(place.emplace(ch.a_tiles[t], cs.a_layout[t]).second);  // fresh once
                        CHECK(cs.a_layout[t] == end);
                        end += (p.m_tiling.size(p.a_shape.row_of(ch.a_tiles[t])) *
                                    p.k_tiling.size(p.a_shape.col_idx()[ch.a_tiles[t]]) + tile_alignment - 1) /
                               tile_alignment * tile_alignment;
                    }
                    CHECK(part.fresh_end == end);
                    for (std::size_t x = part.first; x < part.last; ++x) {
                        const std::size_t t = cs.order[x];
                        REQUIRE(place.count(ch.a_tiles[t]) == 1);  // used only once it is there
                        CHECK(cs.a_layout[t] == place[ch.a_tiles[t]]);
                        CHECK(cs.a_at[t] == (d.a_resident ? cs.a_layout[t] : cs.a_offset[t]));
                        if (d.a_resident) continue;
                        int covering = 0;  // exactly one copy carries tile t to its place in the chunk
                        for (const ACopy& c : part.copies)
                            if (cs.a_layout[t] >= c.from && cs.a_layout[t] < c.from + c.values &&
                                c.to + (cs.a_layout[t] - c.from) == cs.a_offset[t])
                                ++covering;
                        CHECK(covering == 1);
                    }
                    CHECK(part.copies.empty() == d.a_resident);
                }
            }
        CHECK(d.a_values == end);
        CHECK(place.size() == pp.a_needed.size());
        if (d.a_resident) CHECK((d.chunk_values[0] == 0 && d.chunk_values[1] == 0));
    }
}

TEST_CASE("the cuda schedule's waves: a stream's C tiles cut where a wave reaches the flops asked; a wave's "
          "tiles go down together, the sends by when their waves end",
          "[abcd]") {
    const Problem p = irregular_synthetic();
    const Plan plan = inspect(p, test::one_process(size_type(1) << 30));
    const ProcessPlan& pp = plan.processes[0];
    REQUIRE(pp.blocks.size() == 1);
    const BlockPlan& b = pp.blocks[0];
    for (const double flops : {1.0, 1e6, 1e30}) {
        const DeviceSchedule d = schedule_device(p, plan, pp, all_blocks(pp), 4, size_type(1) << 20, flops);
        const BlockSchedule& bs = d.blocks[0];
        const ChunkSchedule& cs = bs.chunks.back();
        std::size_t tiles_sent = 0, sends = 0;
        for (const ChunkPart& part : cs.parts) {
            // Per (stream, wave): its C tiles with their flops in this part.
            std::map<std::pair<int, std::size_t>, std::map<size_type, double>> waves;
            for (const GemmCall& call : part.calls)
                for (size_type g = call.first; g < call.first + call.count; ++g)
                    waves[{call.stream, call.wave}][d.operands[static_cast<std::size_t>(g)].c] +=
                        2.0 * double(call.m) * double(call.n) * double(call.k);
            std::map<int, std::size_t> last_wave;  // per stream
            std::map<int, double> total;             // per stream, up to each wave's end
            std::map<std::pair<int, std::size_t>, double> ends;
            std::set<size_type> seen;
            for (const auto& [at, tiles] : waves) {
                double sum = 0.0, largest = 0.0;
                for (const auto& [c, f] : tiles) {
                    CHECK(seen.insert(c).second);  // a C tile in one wave
                    sum += f;
                    largest = std::max(largest, f);
                }
                CHECK(sum - largest < flops);  // cut as soon as the wave had its flops
                last_wave[at.first] = std::max(last_wave[at.first], at.second);
                ends[at] = total[at.first] += sum;
                if (flops == 1.0) CHECK(tiles.size() == 1);
            }
            for (const auto& [at, tiles] : waves) {
                double sum = 0.0;
                for (const auto& [c, f] : tiles) sum += f;
                if (at.second < last_wave[at.first]) CHECK(sum >= flops);  // all but a stream's last are full
            }
            if (flops == 1e30) CHECK(part.waves == 1);
            // The sends: by their waves' ends; each a wave's tiles, all of them.
            std::size_t before = tiles_sent;
            double end = 0.0;
            for (const CSend& send : part.sends) {
                const double e = ends.at({send.stream, send.wave});
                CHECK(e >= end);
                end = e;
                std::set<size_type> sent;
                for (std::size_t x = before; x < send.c_end; ++x) sent.insert(bs.c_offset[bs.c_order[x]]);
                std::set<size_type> in_wave;
                for (const auto& [c, f] : waves.at({send.stream, send.wave})) in_wave.insert(c);
                for (size_type c : sent) CHECK(in_wave.count(c) == 1);
                before = send.c_end;
                ++sends;
            }
            tiles_sent = before;
        }
        CHECK(tiles_sent == b.c_tiles.size());  // every C tile of this block has a GEMM in its one chunk
        if (flops == 1.0) CHECK(sends == b.c_tiles.size());
        if (flops == 1e30) CHECK(sends <= 4 * cs.parts.size());
    }
}
