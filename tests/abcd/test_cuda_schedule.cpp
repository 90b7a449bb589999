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

TEST_CASE("the cuda schedule: each GEMM once, calls of one shape and distinct C, C tiles on one stream", "[abcd]") {
    const Problem p = uniform_synthetic(0.4);
    const Plan plan = inspect(p, test::one_process(size_type(96) << 10));  // several blocks and chunks
    const ProcessPlan& pp = plan.processes[0];
    REQUIRE(pp.blocks.size() > 1);
    const DeviceSchedule d = schedule_device(p, plan, pp, all_blocks(pp), 4);
    CHECK(d.gemms == pp.gemms);
    CHECK(d.operands.size() == static_cast<std::size_t>(pp.gemms));
    CHECK(d.calls < d.gemms);  // one tile size: batched
    std::set<size_type> covered;
    for (std::size_t bi = 0; bi < d.blocks.size(); ++bi) {
        const BlockSchedule& bs = d.blocks[bi];
        CHECK(bs.chunks.size() == pp.blocks[bi].chunks.size());
        for (size_type off : bs.b_offset) CHECK(off % tile_alignment == 0);
        for (size_type off : bs.c_offset) CHECK((off >= bs.c_begin && off < bs.end && off % tile_alignment == 0));
        std::map<size_type, int> stream_of_c;
        for (const ChunkSchedule& cs : bs.chunks) {
            CHECK(cs.values <= d.chunk_values);
            for (const GemmCall& call : cs.calls) {
                std::set<size_type> cs_in_call;
                for (size_type x = call.first; x < call.first + call.count; ++x) {
                    CHECK(covered.insert(x).second);
                    const GemmOperands& o = d.operands[static_cast<std::size_t>(x)];
                    CHECK(cs_in_call.insert(o.c).second);  // no two problems of a call on one C
                    const auto [it, fresh] = stream_of_c.emplace(o.c, call.stream);
                    CHECK(it->second == call.stream);
                    CHECK(o.a + call.m * call.k <= cs.values);
                    CHECK(o.b + call.k * call.n <= bs.c_begin);
                }
            }
        }
    }
    CHECK(covered.size() == d.operands.size());
}
