// The cuda executor's schedule (plain C++, every build): every tile GEMM in exactly one call,
// a call's GEMMs of one shape and distinct C tiles, a C tile's GEMMs on one stream in their
// chunk order, tiles laid out apart and aligned.
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

std::vector<std::size_t> all_blocks(const ProcessPlan& pp) {
    std::vector<std::size_t> b(pp.blocks.size());
    for (std::size_t x = 0; x < b.size(); ++x) b[x] = x;
    return b;
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
    bool several_parts = false;
    for (std::size_t bi = 0; bi < d.blocks.size(); ++bi) {
        const BlockSchedule& bs = d.blocks[bi];
        const BlockPlan& b = pp.blocks[bi];
        CHECK(bs.chunks.size() == b.chunks.size());
        for (size_type off : bs.b_offset) CHECK(off % tile_alignment == 0);
        for (size_type off : bs.c_offset) CHECK((off >= bs.c_begin && off < bs.end && off % tile_alignment == 0));
        std::map<size_type, int> stream_of_c;
        std::set<size_type> written;  // C tiles (offsets) a call has written so far, in issue order
        for (std::size_t n = 0; n < bs.chunks.size(); ++n) {
            const ChunkSchedule& cs = bs.chunks[n];
            CHECK(cs.values <= d.chunk_values[cs.buffer]);
            REQUIRE(!cs.parts.empty());
            several_parts = several_parts || cs.parts.size() > 1;
            // Parts cover the chunk in order; in the last chunk, the C tiles they make final grow
            // to all of the block's, and no later part updates a C tile already final.
            CHECK(cs.parts.front().begin == 0);
            CHECK(cs.parts.back().end == cs.values);
            CHECK(cs.parts.back().last == cs.order.size());
            std::size_t final_before = 0;
            for (std::size_t q = 0; q < cs.parts.size(); ++q) {
                const ChunkPart& part = cs.parts[q];
                if (q > 0) CHECK((part.begin == cs.parts[q - 1].end && part.first == cs.parts[q - 1].last));
                for (const GemmCall& call : part.calls) {
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
                        if (n + 1 == bs.chunks.size() && final_before > 0)  // not a tile already final
                            CHECK(o.c >= bs.c_offset[bs.c_order[final_before - 1]] + 1);
                    }
                }
                if (n + 1 == bs.chunks.size()) {
                    CHECK(part.c_final >= final_before);
                    final_before = part.c_final;
                }
            }
            if (n + 1 == bs.chunks.size()) CHECK(final_before == b.c_tiles.size());
        }
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
    CHECK(covered.size() == d.operands.size());
}

TEST_CASE("the cuda schedule: the last chunk starts with its smallest row of A, alone in the first part", "[abcd]") {
    // Irregular tiles: rows of A of different sizes; one block, one chunk, parts of 1 MiB.
    SyntheticOptions o;
    o.m = 400;
    o.n = 600;
    o.tile_min = 20;
    o.tile_max = 90;
    o.density_a = 0.6;
    o.density_b = 0.4;
    o.seed = 3;
    const Problem p = synthetic_problem(o);
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
    // After the first part its row's C tiles are final, and only they (rows with no A tile in
    // the chunk would be too: there are none here).
    const std::size_t c_first = cs.parts[0].c_final;
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
