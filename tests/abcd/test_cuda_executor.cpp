// The cuda executor on the device (a GPU, or the simulator): B's tiles made there equal the
// host's bit for bit, batched GEMMs checked, C equal to the cpu executor's, tiles from a
// source only the host has, and the host-device traffic of the blocks: A up, C down, never B.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/executor/tile_memory.hpp"
#include "apps/ccsd_abcd/executor/cuda_schedule.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "apps/ccsd_abcd/problem/tile_values.hpp"
#include "core/backend.hpp"
#include "core/device_traffic.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "apps/ccsd_abcd/executor/b_tile_kernels.hpp"
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/stream.hpp"
#endif

using namespace tessel;
using namespace tessel::abcd;

namespace {

bool no_device() {
    if (cuda::device_count() > 0) return false;
    WARN("no CUDA device (or CUDA not in this build): the cuda executor is not run");
    return true;
}

Problem synthetic(double density_b, size_type tile_min, size_type tile_max) {
    SyntheticOptions o;
    o.m = 160;
    o.n = 480;
    o.tile_min = tile_min;
    o.tile_max = tile_max;
    o.density_a = 0.5;
    o.density_b = density_b;
    o.seed = 9;
    return synthetic_problem(o);
}

struct Run {
    Plan plan;
    ExecutionResult result;
    TileStore<double> c;
};

// A budget of a few times the smallest the inspector accepts (it names it): several blocks.
size_type several_blocks(const Problem& p) {
    try {
        inspect(p, test::one_process(64));
    } catch (const OutOfMemoryBudget& e) {
        const std::string m = e.message();
        return 3 * std::stoll(m.substr(m.find("at least ") + 9));
    }
    return 64;
}

// cuda: A in parts of a few tiles, so that GEMMs and copies of parts and C interleave.
Run run(const Problem& p, size_type budget, Backend backend, size_type part_bytes = size_type(64) << 10,
        bool register_host_tiles = true, double wave_flops = abcd::wave_flops) {
    Run r;
    r.plan = inspect(p, test::one_process(budget));
    auto a = make_local_a<double>(p, r.plan.grid, 0);
    ExecutorOptions eo;
    eo.backend = backend;
    eo.cuda_part_bytes = part_bytes;
    eo.register_host_tiles = register_host_tiles;
    eo.cuda_wave_flops = wave_flops;
    r.result = execute<double>(p, r.plan, a, r.c, eo);
    return r;
}

// Every tile of C from the cuda executor against the cpu executor's: the same GEMMs in the same
// order per tile, so equal to rounding (cuBLAS may block the sums differently).
void check_same_c(const Run& gpu, const Run& cpu) {
    REQUIRE(gpu.c.size() == cpu.c.size());
    for (std::size_t t = 0; t < gpu.c.size(); ++t) {
        REQUIRE(gpu.c[t].size() == cpu.c[t].size());
        for (std::size_t e = 0; e < gpu.c[t].size(); ++e)
            REQUIRE(gpu.c[t][e] == Approx(cpu.c[t][e]).epsilon(1e-12).margin(1e-12));
    }
}

// Bytes of one tile as the device lays it out (tiles start every tile_alignment values), and
// as the host holds it.
std::int64_t laid_out(size_type values) { return (values + tile_alignment - 1) / tile_alignment * tile_alignment * 8; }

// What the blocks must copy, worked out from the plan's tiles (not from the executor's
// schedule): A's tiles that the process uses, each once, and every tile of C, each once, as
// laid out and as held; and A chunk by chunk (every chunk of every block).
struct Expected {
    std::int64_t a_once = 0, a_held = 0, a_chunks = 0, c_once = 0, c_held = 0;
    std::int64_t a_chunks_held = 0;                  // A chunk by chunk, as held
    std::int64_t a_tiles = 0, a_chunk_tiles = 0, c_tiles = 0;  // tiles: A once, A per chunk, C
};
Expected expected_bytes(const Problem& p, const Plan& plan) {
    const ProcessPlan& pp = plan.processes[0];
    const TileShape& cs = plan.product.c_shape;
    auto a_values = [&](size_type pos) { return p.m_tiling.size(p.a_shape.row_of(pos)) * p.k_tiling.size(p.a_shape.col_idx()[pos]); };
    Expected e;
    for (size_type pos : pp.a_needed) {
        e.a_once += laid_out(a_values(pos));
        e.a_held += a_values(pos) * 8;
        ++e.a_tiles;
    }
    for (const auto& b : pp.blocks)
        for (const auto& ch : b.chunks)
            for (size_type pos : ch.a_tiles) {
                e.a_chunks += laid_out(a_values(pos));
                e.a_chunks_held += a_values(pos) * 8;
                ++e.a_chunk_tiles;
            }
    for (size_type pos = 0; pos < cs.nnz(); ++pos) {  // one process: it computes every tile of C
        const size_type v = p.m_tiling.size(cs.row_of(pos)) * p.n_tiling.size(cs.col_idx()[pos]);
        e.c_once += laid_out(v);
        e.c_held += v * 8;
        ++e.c_tiles;
    }
    return e;
}

// Budgets of a problem: its smallest accepted budget (several blocks, A too large to stay on
// the device), and one with several blocks whose A stays on the device (half the budget).
struct Budgets {
    size_type smallest = 0, resident = 0;
};
Budgets budgets(const Problem& p) {
    const size_type smallest = several_blocks(p) / 3;
    const Plan plan = inspect(p, test::one_process(smallest));
    return {smallest, std::max(smallest, 2 * plan.processes[0].a_device_bytes)};
}

}  // namespace

#if defined(TESSEL_HAVE_CUDA)
template <typename T>
void check_device_b_tiles() {
    // Odd sizes and offsets, coordinates beyond 2^32 (the hash wraps the same way on both).
    const std::vector<TileJob> jobs = {{0, 0, 0, 7, 5}, {3, 11, 64, 33, 17}, {5000000000LL, 7000000000LL, 640, 1, 300},
                                       {123, 456, 1024, 300, 1}};
    size_type total = 0, largest = 0;
    for (const auto& j : jobs) {
        total = std::max(total, size_type(j.offset) + size_type(j.rows) * j.cols);
        largest = std::max(largest, size_type(j.rows) * j.cols);
    }
    const std::uint64_t seed = 12345;
    cuda::Stream s;
    cuda::DeviceBuffer<TileJob> d_jobs(jobs.data(), size_type(jobs.size()), s.get());
    cuda::DeviceBuffer<T> out(total);
    generate_tiles<T>(d_jobs.data(), size_type(jobs.size()), largest,
                      element_hash::operand_base(seed, std::uint64_t(Operand::b)), out.data(), s.get());
    std::vector<T> got(static_cast<std::size_t>(total));
    out.download(got.data(), total, s.get());
    for (const auto& j : jobs) {
        std::vector<T> want(static_cast<std::size_t>(j.rows) * j.cols);
        fill_tile(seed, Operand::b, j.row0, j.rows, j.col0, j.cols, want.data());
        CHECK(std::memcmp(want.data(), got.data() + j.offset, want.size() * sizeof(T)) == 0);
    }
}

TEST_CASE("B tiles made on the device equal the host's bit for bit", "[abcd][cuda]") {
    if (no_device()) return;
    check_device_b_tiles<double>();
    check_device_b_tiles<float>();
}

TEST_CASE("batched GEMM: each problem as its own GEMM (simulator: overlapping C, host pointer arrays refused)", "[abcd][cuda]") {
    if (no_device()) return;
    const size_type m = 5, n = 4, k = 3, count = 3;
    std::vector<double> a(m * k * count), b(k * n * count), c(m * n * count, 1.0);
    fill_tile(1, Operand::a, 0, m * k * count, 0, 1, a.data());
    fill_tile(1, Operand::b, 0, k * n * count, 0, 1, b.data());
    cuda::Stream s;
    cuda::DeviceBuffer<double> da(a.data(), size_type(a.size()), s.get()), db(b.data(), size_type(b.size()), s.get()),
        dc(c.data(), size_type(c.size()), s.get());
    std::vector<double*> ptrs;
    for (size_type p = 0; p < count; ++p) ptrs.push_back(da.data() + p * m * k);
    for (size_type p = 0; p < count; ++p) ptrs.push_back(db.data() + p * k * n);
    for (size_type p = 0; p < count; ++p) ptrs.push_back(dc.data() + p * m * n);
    cuda::DeviceBuffer<double*> dp(ptrs.data(), size_type(ptrs.size()), s.get());
    cuda::GemmHandle h(static_cast<void*>(s.get()));
    cuda::gemm_batched(h, m, n, k, 2.0, dp.data(), m, dp.data() + count, k, 1.0, dp.data() + 2 * count, m, count);
    std::vector<double> got(c.size());
    dc.download(got.data(), size_type(got.size()), s.get());
    std::vector<double> want = c;
    for (size_type p = 0; p < count; ++p)
        cpu::gemm(m, n, k, 2.0, a.data() + p * m * k, m, b.data() + p * k * n, k, 1.0, want.data() + p * m * n, m);
    // cuBLAS sums in its own order (tensor cores on Hopper): rounding relative to the terms, not to a
    // result that may cancel.
    for (std::size_t e = 0; e < want.size(); ++e) CHECK(got[e] == Approx(want[e]).epsilon(1e-14).margin(1e-13));

#if defined(TESSEL_CUDA_SIM)
    // The simulator's stand-in refuses what would race or fault on a GPU (its line on stderr
    // names why; the status is cuBLAS's): two problems writing one C, pointer arrays on the host.
    std::vector<double*> same_c = ptrs;
    same_c[2 * count + 1] = same_c[2 * count];
    cuda::DeviceBuffer<double*> bad(same_c.data(), size_type(same_c.size()), s.get());
    CHECK_THROWS_WITH(cuda::gemm_batched(h, m, n, k, 1.0, bad.data(), m, bad.data() + count, k, 1.0,
                                         bad.data() + 2 * count, m, count),
                      Catch::Contains("CUBLAS_STATUS_INVALID_VALUE"));
    CHECK_THROWS_WITH(cuda::gemm_batched(h, m, n, k, 1.0, ptrs.data(), m, ptrs.data() + count, k, 1.0,
                                         ptrs.data() + 2 * count, m, count),
                      Catch::Contains("CUBLAS_STATUS_INVALID_VALUE"));
#endif
}
#endif

TEST_CASE("cuda executor equals the cpu executor: irregular and uniform tiles, one block and many", "[abcd][cuda]") {
    if (no_device()) return;
    for (const auto& [lo, hi] : {std::pair<size_type, size_type>{24, 70}, {16, 16}}) {
        const Problem p = synthetic(0.3, lo, hi);
        for (size_type budget : {size_type(1) << 30, several_blocks(p)}) {
            INFO("tiles " << lo << ".." << hi << ", budget " << budget);
            const Run gpu = run(p, budget, Backend::cuda), cpu = run(p, budget, Backend::cpu);
            const Run whole = run(p, budget, Backend::cuda, size_type(1) << 30);  // one part per chunk
            check_same_c(whole, cpu);
            // C tile by C tile: each goes down after its own wave, while the stream runs the next.
            check_same_c(run(p, budget, Backend::cuda, size_type(1) << 30, true, 1.0), cpu);
            check_same_c(run(p, budget, Backend::cuda, size_type(1) << 30, false, 1.0), cpu);  // through the staging
            CHECK(gpu.result.flops == gpu.plan.product.flops);
            CHECK(gpu.result.gemms == gpu.plan.product.gemms);
            CHECK(gpu.result.blocks == static_cast<size_type>(gpu.plan.processes[0].blocks.size()));
            if (lo == hi) CHECK(gpu.result.calls < gpu.result.gemms);  // one tile shape: batched
            check_same_c(gpu, cpu);
        }
    }
}

TEST_CASE("TESSEL_ABCD_WAVE_FLOPS sets the waves: a C tile each batches nothing and gives the same C; a bad value "
          "is refused",
          "[abcd][cuda]") {
    if (no_device()) return;
    const Problem p = synthetic(0.3, 16, 16);  // one tile shape: a wave of many C tiles batches them
    const Run cpu = run(p, size_type(1) << 30, Backend::cpu);
    const Run waves = run(p, size_type(1) << 30, Backend::cuda);
    setenv("TESSEL_ABCD_WAVE_FLOPS", "1", 1);
    const Run tile_by_tile = run(p, size_type(1) << 30, Backend::cuda);
    CHECK(waves.result.calls < tile_by_tile.result.calls);
    check_same_c(tile_by_tile, cpu);
    for (const char* bad : {"abc", "0", "-5", "1e9x"}) {
        setenv("TESSEL_ABCD_WAVE_FLOPS", bad, 1);
        CHECK_THROWS_WITH(run(p, size_type(1) << 30, Backend::cuda),
                          Catch::EndsWith(std::string("TESSEL_ABCD_WAVE_FLOPS: '") + bad +
                                          "' is not a positive number of flops"));
    }
    unsetenv("TESSEL_ABCD_WAVE_FLOPS");
}

TEST_CASE("tiles only the host can make go up from the host and give the same C", "[abcd][cuda]") {
    if (no_device()) return;
    Problem p = synthetic(0.3, 24, 70);
    const size_type budget = several_blocks(p);
    const Run cpu = run(p, budget, Backend::cpu);
    p.values = std::make_shared<test::HostOnlyTiles>(p.values);
    device_traffic::reset();
    const Run gpu = run(p, budget, Backend::cuda);
    CHECK(gpu.result.blocks > 1);
    check_same_c(gpu, cpu);
    CHECK(device_traffic::counts(device_traffic::Phase::steady).h2d_bytes > expected_bytes(p, gpu.plan).a_once);
}

TEST_CASE("the blocks copy A up once when it fits the budget, else chunk by chunk, C down once, B never",
          "[abcd][cuda]") {
    if (no_device()) return;
    std::vector<std::int64_t> one_block_h2d;
    for (const auto& [lo, hi] : {std::pair<size_type, size_type>{24, 70}, {16, 16}})
        for (double density_b : {0.25, 0.6}) {
            const Problem p = synthetic(density_b, lo, hi);
            const Budgets b = budgets(p);
            for (size_type budget : {size_type(1) << 30, b.resident, b.smallest}) {
                INFO("tiles " << lo << ".." << hi << ", density of B " << density_b << ", budget " << budget);
                device_traffic::reset();
                const Run gpu = run(p, budget, Backend::cuda);
                const ProcessPlan& pp = gpu.plan.processes[0];
                if (budget == b.resident) REQUIRE((pp.a_resident && pp.blocks.size() > 1));
                if (budget == b.smallest) REQUIRE((!pp.a_resident && pp.blocks.size() > 1));
                const auto steady = device_traffic::counts(device_traffic::Phase::steady);
                const Expected e = expected_bytes(p, gpu.plan);
                // A: each tile up once when it stays (whatever the blocks), else every chunk's;
                // the host copies each A tile into pinned memory once either way.
                CHECK(steady.h2d_bytes == (pp.a_resident ? e.a_once : e.a_chunks));
                CHECK(gpu.result.a_packed_bytes == e.a_held);
                // C: every tile down once, not per block or chunk.
                CHECK(steady.d2h_bytes == e.c_once);
                CHECK(gpu.result.c_unpacked_bytes == e.c_held);
                if (lo == hi) {  // 16 x 16 tiles: no gaps, the bytes are A's and C's sizes
                    CHECK(e.c_once == std::int64_t(gpu.plan.product.c_shape.area(p.m_tiling, p.n_tiling)) * 8);
                    if (pp.a_resident) CHECK(e.a_once == std::int64_t(p.a_shape.area(p.m_tiling, p.k_tiling)) * 8);
                }
                CHECK(steady.pageable_copies == 0);
                CHECK(device_traffic::steady_steps() == gpu.result.blocks);
                check_same_c(gpu, run(p, budget, Backend::cpu));
                if (budget == size_type(1) << 30) {
                    CHECK(gpu.result.blocks == 1);
                    one_block_h2d.push_back(steady.h2d_bytes);
                }
            }
        }
    // A goes up once, whatever B holds (B's tiles differ by a factor ~2.4).
    REQUIRE(one_block_h2d.size() == 4);
    CHECK(one_block_h2d[0] == one_block_h2d[1]);
    CHECK(one_block_h2d[2] == one_block_h2d[3]);
}

// The first block's timeline in the order its events wait on one another: the GEMMs after B and
// the first part of A, C down after B and after the GEMMs.
void check_timeline(const ExecutionResult& r) {
    const auto& t = r.device_timeline;
    CHECK(t.c_down_done > 0);
    CHECK(t.b_made >= 0);
    CHECK(t.gemms_done >= t.b_made);
    CHECK(t.gemms_done >= t.first_a_part_up);
    CHECK(t.last_a_part_up >= t.first_a_part_up);
    CHECK(t.gemms_done >= t.last_a_part_up);
    CHECK(t.first_c_down >= t.b_made);
    CHECK(t.c_down_done >= t.gemms_done);
    CHECK(t.c_down_done >= t.first_c_down);
}

TEST_CASE("a run keeps the device's streams and buffers for the next, which gives the same C, and release frees them",
          "[abcd][cuda]") {
    if (no_device()) return;
    release_kept_devices();
    CHECK(kept_device_bytes(0) == 0);
    const Problem p = synthetic(0.3, 24, 70);
    const Budgets b = budgets(p);
    const Run cpu = run(p, b.smallest, Backend::cpu);
    // A kept on the device, then chunk by chunk (its buffer goes, two chunk buffers come), then
    // the first plan again: every run on what the one before kept.
    const Run resident = run(p, size_type(1) << 30, Backend::cuda);
    const size_type resident_kept = kept_device_bytes(0);
    CHECK(resident_kept > 0);
    const Run chunked = run(p, b.smallest, Backend::cuda);
    REQUIRE(!chunked.plan.processes[0].a_resident);
    const size_type chunked_kept = kept_device_bytes(0);
    CHECK(chunked_kept < resident_kept);
    const Run again = run(p, size_type(1) << 30, Backend::cuda);
    CHECK(kept_device_bytes(0) == resident_kept);
    for (const Run* gpu : {&resident, &chunked, &again}) {
        check_same_c(*gpu, cpu);
        check_timeline(gpu->result);  // timed anew in every run, on the kept events
    }
    release_kept_devices();
    CHECK(kept_device_bytes(0) == 0);
}

// Tiles of any size from the tile cache (so that their buffers can be registered), for a scope.
struct AllTilesCached {
    AllTilesCached() { tile_memory::set_cached_from(0); }
    ~AllTilesCached() { tile_memory::set_cached_from(tile_memory::cached_from); }
};

TEST_CASE("registered host tiles go straight to and from the device with no host packing, the same C and one copy per tile",
          "[abcd][cuda]") {
    if (no_device()) return;
    AllTilesCached cached;
    size_type registered = 0;
    for (const auto& [lo, hi] : {std::pair<size_type, size_type>{24, 70}, {16, 16}}) {
        const Problem p = synthetic(0.4, lo, hi);
        const Budgets b = budgets(p);
        for (size_type budget : {size_type(1) << 30, b.resident, b.smallest}) {
            INFO("tiles " << lo << ".." << hi << ", budget " << budget);
            device_traffic::reset();
            const Run staged = run(p, budget, Backend::cuda, size_type(64) << 10, false);
            const auto old = device_traffic::counts(device_traffic::Phase::steady);
            device_traffic::reset();
            const Run gpu = run(p, budget, Backend::cuda);
            const auto steady = device_traffic::counts(device_traffic::Phase::steady);
            const ProcessPlan& pp = gpu.plan.processes[0];
            const Expected e = expected_bytes(p, gpu.plan);
            // Registration off: every tile through the pinned staging, as before.
            CHECK(staged.result.a_packed_bytes == e.a_held);
            CHECK(staged.result.c_unpacked_bytes == e.c_held);
            CHECK(staged.result.registered_bytes == 0);
            CHECK(old.h2d_bytes == (pp.a_resident ? e.a_once : e.a_chunks));
            CHECK(old.d2h_bytes == e.c_once);
            // On: nothing through the host's hands; A once (or per chunk) and C once, each tile
            // one copy of its own bytes (no layout padding), all of them pinned.
            CHECK(gpu.result.a_packed_bytes == 0);
            CHECK(gpu.result.c_unpacked_bytes == 0);
            CHECK(steady.h2d_bytes == (pp.a_resident ? e.a_held : e.a_chunks_held));
            CHECK(steady.d2h_bytes == e.c_held);
            CHECK(steady.copies == (pp.a_resident ? e.a_tiles : e.a_chunk_tiles) + e.c_tiles);
            CHECK(steady.pageable_copies == 0);
            CHECK(gpu.result.h2d_bytes == staged.result.h2d_bytes);
            CHECK(gpu.result.d2h_bytes == staged.result.d2h_bytes);
            registered += gpu.result.registered_bytes;
            const Run cpu = run(p, budget, Backend::cpu);
            check_same_c(gpu, cpu);
            check_same_c(staged, cpu);
        }
    }
    CHECK(registered > 0);
    // The environment turns it off too.
    const Problem p = synthetic(0.4, 24, 70);
    setenv("TESSEL_ABCD_HOST_REGISTER", "0", 1);
    const Run off = run(p, size_type(1) << 30, Backend::cuda);
    unsetenv("TESSEL_ABCD_HOST_REGISTER");
    CHECK(off.result.c_unpacked_bytes == expected_bytes(p, off.plan).c_held);
}

TEST_CASE("tiles too small to be registered go through the staging and the others straight, with the same C", "[abcd][cuda]") {
    if (no_device()) return;
    const std::size_t from = 16 << 10;  // tiles of 24..70 squared: 4.6 to 39 KiB, some each way
    tile_memory::set_cached_from(from);
    const Problem p = synthetic(0.4, 24, 70);
    const Budgets b = budgets(p);
    for (size_type budget : {size_type(1) << 30, b.resident, b.smallest}) {
        INFO("budget " << budget);
        device_traffic::reset();
        const Run gpu = run(p, budget, Backend::cuda);
        const auto steady = device_traffic::counts(device_traffic::Phase::steady);
        std::int64_t a_small = 0, c_small = 0;
        for (size_type pos : gpu.plan.processes[0].a_needed) {
            const auto bytes = p.m_tiling.size(p.a_shape.row_of(pos)) * p.k_tiling.size(p.a_shape.col_idx()[pos]) * 8;
            if (std::size_t(bytes) < from) a_small += bytes;
        }
        for (const auto& tile : gpu.c)
            if (tile.size() * 8 < from) c_small += std::int64_t(tile.size() * 8);
        REQUIRE((a_small > 0 && c_small > 0));
        CHECK(gpu.result.a_packed_bytes == a_small);
        CHECK(gpu.result.c_unpacked_bytes == c_small);
        const Expected e = expected_bytes(p, gpu.plan);
        CHECK(steady.d2h_bytes >= e.c_held);  // C once: staged runs whole as laid out, no more
        CHECK(steady.d2h_bytes <= e.c_once);
        CHECK(steady.pageable_copies == 0);
        check_same_c(gpu, run(p, budget, Backend::cpu));
    }
    tile_memory::set_cached_from(tile_memory::cached_from);
}

TEST_CASE("a cached buffer is registered once and unregistered before it is freed", "[abcd][cuda]") {
    if (no_device()) return;
    tile_memory::trim();
    const std::size_t bytes = std::size_t(3) << 20;
    void* p = tile_memory::allocate(bytes);
    int pins = 0;
    static int unpins = 0;
    unpins = 0;
    const tile_memory::Pinning how{[](void* q, std::size_t n) {
                                       device_traffic::register_pinned(q, std::int64_t(n));
                                       return true;
                                   },
                                   [](void* q) {
                                       device_traffic::unregister_pinned(q);
                                       ++unpins;
                                   }};
    std::size_t registered = 0;
    CHECK(tile_memory::pin(p, how, registered) == tile_memory::PinResult::now);
    CHECK(registered >= bytes);
    ++pins;
    tile_memory::release(p, bytes);
    void* again = tile_memory::allocate(bytes);  // the same buffer, still registered
    REQUIRE(again == p);
    CHECK(tile_memory::pin(again, how, registered) == tile_memory::PinResult::already);
    CHECK(device_traffic::is_pinned(again));
    std::vector<char> not_cached(16);
    CHECK(tile_memory::pin(not_cached.data(), how, registered) == tile_memory::PinResult::refused);
    tile_memory::release(again, bytes);
    CHECK(unpins == 0);
    tile_memory::trim();
    CHECK(unpins == pins);
    CHECK_FALSE(device_traffic::is_pinned(p));
}
