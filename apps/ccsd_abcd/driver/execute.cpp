#include "apps/ccsd_abcd/driver/execute.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "apps/ccsd_abcd/advice/cublas_yardstick.hpp"
#include "apps/ccsd_abcd/advice/dgemm_rate.hpp"
#include "apps/ccsd_abcd/advice/gemm_rate_table.hpp"
#include "apps/ccsd_abcd/driver/mpi.hpp"
#include "apps/ccsd_abcd/executor/tile_memory.hpp"
#include "core/app/byte_size.hpp"
#include "core/device_traffic.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::abcd::driver {

namespace {

// cuda: the table (rank 0 reads or measures it on its device 0), the rate at the problem's tile
// shapes and at the square size, broadcast to every rank.
DgemmReference cublas_reference(const Args& a, const Problem& problem, int devices, MPI_Comm comm, bool say) {
    DgemmReference d;
    d.cublas = true;
    d.devices = devices;
    double rates[3] = {0, 0, 0};
    collective(comm, [&] {
        if (rank_of(comm) != 0) return;
        const bool dp = problem.precision == Precision::float64;
        GemmRateTable table;
        if (a.rate_table.empty()) {
            table = machine_rate_table(dp, false, &d.table, true);
        } else {
            table = read_rate_table(a.rate_table);
            if (table.backend != "cuda") TESSEL_INVALID_INPUT(a.rate_table, 0, "is a " + table.backend + " rate table; the run's backend is cuda");
            d.table = "from " + a.rate_table;
        }
        const CublasYardstick y = cublas_yardstick(problem, table, a.dgemm_size);
        rates[0] = y.at_tiles;
        rates[1] = double(y.square);
        rates[2] = y.at_square;
    });
    TESSEL_MPI_CHECK(MPI_Bcast(rates, 3, MPI_DOUBLE, 0, comm));
    d.rate = rates[0] * devices;
    d.square = static_cast<size_type>(rates[1]);
    d.square_rate = rates[2] * devices;
    if (say)
        std::printf("cuBLAS reference: %.2f TFLOP/s at this problem's tile shapes, %.2f TFLOP/s at %lld^3 (%d device(s); "
                    "rate table %s)\n",
                    d.rate * 1e-12, d.square_rate * 1e-12, (long long)d.square, devices, d.table.c_str());
    return d;
}

}  // namespace

DgemmReference measure_dgemm_reference(const Args& a, const Problem& problem, Backend backend, int devices,
                                       MPI_Comm comm, bool say) {
    DgemmReference d;
    if (a.dgemm_size <= 0) return d;
    if (backend == Backend::cuda) return cublas_reference(a, problem, devices, comm, say);
    TESSEL_MPI_CHECK(MPI_Barrier(comm));
    const DgemmRate measured = measure_dgemm_rate(a.dgemm_size, omp_get_max_threads());
    double rates[2] = {measured.one_call, measured.concurrent};
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, rates, 2, MPI_DOUBLE, MPI_SUM, comm));
    d.one_call = rates[0];
    d.concurrent = rates[1];
    d.rate = std::max(rates[0], rates[1]);
    if (say)
        std::printf("DGEMM reference: %.1f GFLOP/s (n = %lld, all ranks at once; threaded calls %.1f, one "
                    "single-threaded call per core %.1f)\n",
                    d.rate * 1e-9, (long long)a.dgemm_size, d.one_call * 1e-9, d.concurrent * 1e-9);
    return d;
}

template <typename T>
ExecutorRun<T> run_executor(const Args& a, const Problem& problem, const Plan& plan, TileStore<T>& a_tiles,
                            const RunSetup& setup, MPI_Comm comm) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    ExecutorOptions eo;
    eo.backend = parse_backend(a.backend);
    eo.comm = ranks > 1 ? comm : MPI_COMM_NULL;
    eo.rank = rank;
    eo.first_device = setup.first_device;
    eo.verbose = a.verbose;
    ExecutorRun<T> best;
    for (int rep = 0; rep < std::max(1, a.repeat); ++rep) {
        // The previous run's C goes back to the tile cache first, as an iteration's result is
        // used up before the next: its buffers (registered with the device) serve this run.
        best.c_owned.clear();
        device_traffic::reset();  // this run's copies, waits and launches only
        TESSEL_MPI_CHECK(MPI_Barrier(comm));
        Timer t;
        ExecutionResult result;
        try {
            result = execute(problem, plan, a_tiles, best.c_owned, eo);
        } catch (const Error& e) {
            // Other ranks may wait for this one's messages: run_mpi_app ends the job.
            throw std::runtime_error("rank " + std::to_string(rank) + ": " + e.message());
        }
        TESSEL_MPI_CHECK(MPI_Barrier(comm));
        const double seconds = max_over_ranks(t.seconds(), comm);
        best.repeats.push_back({seconds, result.registered_bytes, result.register_seconds});
        if (rep == 0 || seconds < best.seconds) {  // every run makes the same C: the last one's is kept
            best.result = result;
            best.seconds = seconds;
            best.device_traffic = device_traffic::to_json();
        }
    }
    tile_memory::trim();  // the runs are over: give the kept B and C buffers back
    return best;
}

template ExecutorRun<double> run_executor<double>(const Args&, const Problem&, const Plan&, TileStore<double>&,
                                                  const RunSetup&, MPI_Comm);
template ExecutorRun<float> run_executor<float>(const Args&, const Problem&, const Plan&, TileStore<float>&,
                                                const RunSetup&, MPI_Comm);

template <typename T>
ExecutedStep<T> generate_a_and_execute(const Args& a, const Problem& problem, const Plan& plan, const RunSetup& setup,
                                       const DgemmReference& dgemm, PhaseTimes& phases, MPI_Comm comm, bool say) {
    const int rank = rank_of(comm);
    Timer t;
    // cuda: A's and C's tiles from the cache, which registers them with the device.
    if (setup.backend == Backend::cuda) tile_memory::set_cached_from(tile_memory::device_cached_from);
    TileStore<T> a_tiles = collective(comm, [&] { return make_local_a<T>(problem, plan.grid, rank); });
    phases.add("generate_a", t.seconds());
    ExecutedStep<T> step{run_executor<T>(a, problem, plan, a_tiles, setup, comm), {}};
    phases.add("executor", step.run.seconds);
    a_tiles.clear();
    step.totals = sum_over_ranks(step.run.result, step.run.seconds, plan, comm);
    print_executor(a, step.run.result, step.totals, plan, step.run.seconds, dgemm, setup.backend, rank, say);
    if (say && step.run.repeats.size() > 1) {
        std::printf("repeats:");
        for (const RepeatRecord& r : step.run.repeats) std::printf(" %.4f", r.seconds);
        std::printf(" s (best reported)\n");
    }
    return step;
}

template ExecutedStep<double> generate_a_and_execute<double>(const Args&, const Problem&, const Plan&, const RunSetup&,
                                                             const DgemmReference&, PhaseTimes&, MPI_Comm, bool);
template ExecutedStep<float> generate_a_and_execute<float>(const Args&, const Problem&, const Plan&, const RunSetup&,
                                                           const DgemmReference&, PhaseTimes&, MPI_Comm, bool);

ExecutorTotals sum_over_ranks(const ExecutionResult& er, double seconds, const Plan& plan, MPI_Comm comm) {
    ExecutorTotals s;
    s.flops = er.flops;
    s.b_generation_seconds = er.b_generation_seconds;
    s.a_wait_seconds = er.a_wait_seconds;
    s.gemms = er.gemms;
    long long bytes[6] = {er.a_sent_bytes, er.a_received_bytes, er.c_sent_bytes, er.c_received_bytes, er.h2d_bytes,
                          er.d2h_bytes};
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &s.flops, 1, MPI_DOUBLE, MPI_SUM, comm));
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &s.b_generation_seconds, 1, MPI_DOUBLE, MPI_SUM, comm));
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &s.a_wait_seconds, 1, MPI_DOUBLE, MPI_MAX, comm));
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &s.gemms, 1, MPI_LONG_LONG, MPI_SUM, comm));
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, bytes, 6, MPI_LONG_LONG, MPI_SUM, comm));
    s.a_sent = bytes[0];
    s.c_sent = bytes[2];
    s.host_to_device = bytes[4];
    s.device_to_host = bytes[5];
    s.rate = seconds > 0 ? s.flops / seconds : 0;
    s.flops_agree = std::abs(s.flops - plan.product.flops) <= 1e-9 * std::max(1.0, plan.product.flops) &&
                    s.gemms == plan.product.gemms;
    return s;
}

void print_executor(const Args& a, const ExecutionResult& er, const ExecutorTotals& s, const Plan& plan,
                    double seconds, const DgemmReference& dgemm, Backend backend, int rank, bool say) {
    if (a.verbose)
        std::printf("rank %d: %s; %.3f s, %.3f GFLOP, %lld blocks, %lld chunks\n", rank, er.backend.c_str(), er.seconds,
                    er.flops * 1e-9, (long long)er.blocks, (long long)er.chunks);
    if (!say) return;
    std::printf("executor: %s\n", er.backend.c_str());
    std::printf("executor: %.3f s, %.2f GFLOP/s", seconds, s.rate * 1e-9);
    if (dgemm.rate > 0 && dgemm.cublas)
        std::printf(" = %.1f%% of cuBLAS at this problem's tile shapes, %.1f%% of cuBLAS at %lld^3", 100 * s.rate / dgemm.rate,
                    100 * s.rate / dgemm.square_rate, (long long)dgemm.square);
    else if (dgemm.rate > 0)
        std::printf(" = %.1f%% of the DGEMM rate", 100 * s.rate / dgemm.rate);
    if (backend == Backend::cuda) {
        const auto& d = er.device_setup_parts;
        std::printf(" (device setup %.3f s: schedule %.3f, streams and handles %.3f, buffers %.3f, upload %.3f)",
                    er.device_setup_seconds, d.schedule, d.streams, d.buffers, d.upload);
    }
    std::printf(" (B made on demand: %.3f core-s; longest wait for A: %.3f s)\n", s.b_generation_seconds,
                s.a_wait_seconds);
    if (const auto& t = er.device_timeline; backend == Backend::cuda && t.c_down_done > 0)
        std::printf("device timeline of the first block (ms from its start): B made %.2f, A up %.2f to %.2f, "
                    "first C down %.2f, GEMMs done %.2f, C down %.2f\n",
                    1e3 * t.b_made, 1e3 * t.first_a_part_up, 1e3 * t.last_a_part_up, 1e3 * t.first_c_down,
                    1e3 * t.gemms_done, 1e3 * t.c_down_done);
    std::printf("flops: executor %.6g = inspector %.6g, %lld GEMMs: %s\n", s.flops, plan.product.flops, s.gemms,
                s.flops_agree ? "agree" : "DISAGREE");
    std::printf("bytes between ranks: A %s, C %s; host<->device %s%s / %s\n", app::format_bytes(double(s.a_sent)).c_str(),
                app::format_bytes(double(s.c_sent)).c_str(), backend == Backend::cpu ? "(modelled) " : "",
                app::format_bytes(double(s.host_to_device)).c_str(), app::format_bytes(double(s.device_to_host)).c_str());
}

}  // namespace tessel::abcd::driver
