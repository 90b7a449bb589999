// Measuring the tile GEMM rate table on this machine: the GEMM rate by shape with every thread
// busy, the executor's overheads, the cost of making and first touching tile values.
#include "apps/ccsd_abcd/advice/gemm_rate_table.hpp"

#include <malloc.h>
#include <omp.h>
#include <time.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "apps/ccsd_abcd/advice/cuda_rates.hpp"
#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/executor/tile_memory.hpp"
#include "apps/ccsd_abcd/executor/tile_store.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "apps/ccsd_abcd/problem/tile_source.hpp"
#include "apps/ccsd_abcd/problem/tile_values.hpp"
#include "core/app/machine.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {

// CPU time, not wall time: on a shared machine the calibration is descheduled at random, and
// wall time would charge that to the GEMMs and overheads. The thread's clock for the one-core
// GEMMs, the process's (all threads) for the executor runs.
double cpu_seconds(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Each thread's operands: A, B and C regions of a 24 MiB pool, allocated and filled once for
// the whole calibration (touching fresh pages for every shape cost more than the GEMMs on a VM).
template <typename T>
struct OperandPool {
    static constexpr double bytes = 24.0 * 1024 * 1024;
    std::size_t elements = 0;  ///< per operand: the pool, or the largest operand if larger
    std::vector<T> a, b, c;

    void make() {
        const std::size_t n = elements;
        a.resize(n);
        b.resize(n);
        c.assign(n, T(0));
        fill_tile(3, Operand::a, 0, size_type(n), 0, 1, a.data());
        fill_tile(3, Operand::b, 0, size_type(n), 0, 1, b.data());
    }
};

// One shape, per core while every thread of the process runs the same shape at once (as the
// executor's tasks do: cores that share a physical core, caches or memory bandwidth slow each
// other, most for the largest GEMMs). The executor's GEMMs read A and B tiles that other GEMMs
// have not just touched, so each thread's operands cycle through sets spread over its pool
// (a hot loop on one set of operands would overstate small tiles). Timed in each thread's CPU
// time; the rate is the mean over the threads, best of three rounds.
template <typename T>
double time_shape(std::vector<OperandPool<T>>& pools, size_type m, size_type n, size_type k, double seconds) {
    const double set_bytes = double(m * k + k * n + m * n) * sizeof(T);
    const std::size_t sets = static_cast<std::size_t>(std::clamp(OperandPool<T>::bytes / set_bytes, 1.0, 4096.0));
    const auto mk = static_cast<std::size_t>(m * k), kn = static_cast<std::size_t>(k * n), mn = static_cast<std::size_t>(m * n);
    const double flops = 2.0 * double(m) * double(n) * double(k);
    const int threads = static_cast<int>(pools.size());
    std::vector<double> best(static_cast<std::size_t>(threads), 0.0);
#pragma omp parallel num_threads(threads)
    {
        OperandPool<T>& pool = pools[static_cast<std::size_t>(omp_get_thread_num())];
        if (pool.a.empty()) pool.make();  // first touch by the thread that uses it
        auto call = [&](std::size_t s) {
            cpu::gemm(m, n, k, T(1), pool.a.data() + s * mk, m, pool.b.data() + s * kn, k, T(1), pool.c.data() + s * mn, m);
        };
        call(0);  // warm-up
        double& mine = best[static_cast<std::size_t>(omp_get_thread_num())];
        for (int round = 0; round < 3; ++round) {
#pragma omp barrier
            const double start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
            long calls = 0;
            double used = 0;
            do {
                call(static_cast<std::size_t>(calls) % sets);
                ++calls;
                used = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - start;
            } while (used < seconds);
            mine = std::max(mine, flops * double(calls) / used);
        }
    }
    double sum = 0;
    for (double r : best) sum += r;
    return sum / double(threads);
}

// Executor core-seconds (process CPU time) beyond the modelled GEMM and fill time on a problem
// of 8 x 8 tiles whose shapes are `pairs_a` and `pairs_b` (tiles x tiles), run with the
// threads of this process (their waiting for each other counts as overhead).
template <typename T>
double excess_seconds(const GemmRateTable& table, size_type tiles, std::vector<std::pair<size_type, size_type>> pairs_a,
                      std::vector<std::pair<size_type, size_type>> pairs_b, double* gemms, double* tile_count) {
    const Tiling t = Tiling::from_sizes(std::vector<size_type>(static_cast<std::size_t>(tiles), 8));
    Problem p = make_problem(t, t, TileShape::from_pairs(tiles, tiles, std::move(pairs_a)), t, t,
                             TileShape::from_pairs(tiles, tiles, std::move(pairs_b)));
    p.values = std::make_shared<GeneratedTiles>(7, t, t, t);
    InspectorOptions io;
    io.device_memory = size_type(1) << 30;
    io.precision = std::is_same_v<T, double> ? Precision::float64 : Precision::float32;
    const Plan plan = inspect(p, io);
    ExecutorOptions eo;
    eo.backend = Backend::cpu;
    double best = 1e300;
    for (int round = 0; round < 2; ++round) {
        auto a = make_local_a<T>(p, plan.grid, 0);
        TileStore<T> c;
        const double start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
        execute<T>(p, plan, a, c, eo);
        best = std::min(best, cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - start);
    }
    *gemms = double(plan.product.gemms);
    *tile_count = double(p.b_shape.nnz() + plan.product.c_shape.nnz());
    const double modelled = *gemms * table.gemm_seconds(8, 8, 8) + p.b_shape.area(t, t) * table.fill_seconds_per_value;
    return best - modelled;
}

// The executor's overheads: per tile GEMM (task list, C tile lookup, scheduling) and per tile
// of B and C (buffers taken and given back, zeroing, hand-over), from two problems of 8 x 8
// tiles: dense (96 GEMMs per tile of C, operands beyond the nearest caches as in the table)
// and diagonal (one GEMM per tile of C).
template <typename T>
void measure_overheads(GemmRateTable& table) {
    const size_type n = 96, d = 4096;
    std::vector<std::pair<size_type, size_type>> dense, diagonal;
    for (size_type i = 0; i < n; ++i)
        for (size_type j = 0; j < n; ++j) dense.emplace_back(i, j);
    for (size_type i = 0; i < d; ++i) diagonal.emplace_back(i, i);
    double g1 = 0, t1 = 0, g2 = 0, t2 = 0;
    const double e1 = excess_seconds<T>(table, n, dense, dense, &g1, &t1);
    const double e2 = excess_seconds<T>(table, d, diagonal, diagonal, &g2, &t2);
    // e1 = g1·o_gemm + t1·o_tile, e2 = g2·o_gemm + t2·o_tile.
    const double det = g1 * t2 - g2 * t1;
    double per_gemm = (e1 * t2 - e2 * t1) / det, per_tile = (g1 * e2 - g2 * e1) / det;
    if (per_gemm < 0) {
        per_gemm = 0;
        per_tile = std::max(0.0, e2 / t2);
    }
    if (per_tile < 0) {
        per_tile = 0;
        per_gemm = std::max(0.0, e1 / g1);
    }
    table.gemm_overhead_seconds = per_gemm;
    table.tile_overhead_seconds = per_tile;
}

template <typename T>
double measure_fill() {
    const size_type n = 256;
    std::vector<T> tile(static_cast<std::size_t>(n * n));
    double best = 1e300;
    for (int round = 0; round < 3; ++round) {
        Timer t;
        fill_tile(5, Operand::b, 0, n, 0, n, tile.data());
        best = std::min(best, t.seconds());
    }
    return best / double(n * n);
}

// Every run makes its B and C tiles in memory the process has not touched yet, and on a virtual
// machine the first-touch page faults cost far more than the values (milliseconds per MiB
// against a fraction of a nanosecond per value). Measured as the executor meets it: every
// thread making tiles at once, in its own CPU time (the faults are its system time); the mean
// over the threads, best of two rounds, the memory given back to the system after each.
template <typename T>
double measure_first_touch(double fill_per_value) {
    const std::size_t n = 256;                                     // tiles of 256 x 256, as B's are
    const std::size_t tiles = (std::size_t(24) << 20) / (n * n * sizeof(T));  // 24 MiB per thread
    const int threads = std::max(1, omp_get_max_threads());
    double best = 1e300;
    for (int round = 0; round < 2; ++round) {
        std::vector<double> used(static_cast<std::size_t>(threads), 0.0);
#pragma omp parallel num_threads(threads)
        {
            std::vector<TileBuffer<T>> made(tiles);
#pragma omp barrier
            const double start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
            for (auto& tile : made) {
                tile.resize(n * n);
                fill_tile(5, Operand::b, 0, size_type(n), 0, size_type(n), tile.data());
            }
            used[static_cast<std::size_t>(omp_get_thread_num())] = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - start;
        }
        tile_memory::trim();
        malloc_trim(0);
        double sum = 0;
        for (double u : used) sum += u;
        best = std::min(best, sum / double(threads) / double(tiles * n * n));
    }
    return std::max(0.0, best - fill_per_value);
}

// Other processes can only slow a measurement down, and a larger GEMM runs at least as fast
// as a smaller one: each rate becomes the largest measured at its shape or any smaller one
// (dips from a busy machine are removed; the table is the running maximum in m, n and k).
void monotone_envelope(GemmRateTable& t) {
    const std::size_t n = t.sizes.size();
    for (std::size_t m = 0; m < n; ++m)
        for (std::size_t c = 0; c < n; ++c)
            for (std::size_t k = 0; k < n; ++k) {
                double& r = t.at(m, c, k);
                if (m > 0) r = std::max(r, t.at(m - 1, c, k));
                if (c > 0) r = std::max(r, t.at(m, c - 1, k));
                if (k > 0) r = std::max(r, t.at(m, c, k - 1));
            }
}

template <typename T>
GemmRateTable measure(const std::vector<size_type>& sizes, double seconds) {
    GemmRateTable t;
    t.machine = machine_key(std::is_same_v<T, double>);
    t.sizes = sizes;
    t.rates.assign(sizes.size() * sizes.size() * sizes.size(), 0.0);
    cpu::BlasThreads single(1);  // as each executor task runs its GEMM
    std::vector<OperandPool<T>> pools(static_cast<std::size_t>(std::max(1, omp_get_max_threads())));
    const auto largest = static_cast<std::size_t>(sizes.back() * sizes.back());
    for (auto& pool : pools) pool.elements = std::max(static_cast<std::size_t>(OperandPool<T>::bytes / sizeof(T)), largest);
    for (std::size_t im = 0; im < sizes.size(); ++im)
        for (std::size_t in = 0; in < sizes.size(); ++in)
            for (std::size_t ik = 0; ik < sizes.size(); ++ik)
                t.at(im, in, ik) = time_shape<T>(pools, sizes[im], sizes[in], sizes[ik], seconds);
    monotone_envelope(t);
    t.fill_seconds_per_value = measure_fill<T>();
    t.first_touch_seconds_per_value = measure_first_touch<T>(t.fill_seconds_per_value);
    measure_overheads<T>(t);
    return t;
}

}  // namespace

GemmRateTable measure_gemm_rate_table(bool double_precision, const std::vector<size_type>& sizes, double seconds) {
    return double_precision ? measure<double>(sizes, seconds) : measure<float>(sizes, seconds);
}

GemmRateTable measure_cuda_gemm_rate_table(bool double_precision, const std::vector<size_type>& sizes, double seconds) {
    GemmRateTable t;
    t.backend = "cuda";
    t.machine = cuda_machine_key(double_precision);
    t.sizes = sizes;
    CudaRates r = measure_cuda_rates(double_precision, sizes, seconds);
    t.rates = std::move(r.rates);
    monotone_envelope(t);
    t.h2d_seconds_per_byte = r.h2d_seconds_per_byte;
    t.d2h_seconds_per_byte = r.d2h_seconds_per_byte;
    // B's values are made on the host as on cpu; into pinned staging buffers that are reused,
    // so no first touch; the launch cost is in the rates, so no overhead per GEMM or tile.
    t.fill_seconds_per_value = double_precision ? measure_fill<double>() : measure_fill<float>();
    return t;
}

}  // namespace tessel::abcd
