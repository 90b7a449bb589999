// tessel-abcd's executor step: the machine's DGEMM rate as the yardstick, the timed executor,
// its counters summed over the ranks and its lines of the report.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "apps/ccsd_abcd/driver/args.hpp"
#include "apps/ccsd_abcd/driver/setup.hpp"
#include "apps/ccsd_abcd/executor/executor.hpp"
#include "core/timer.hpp"

namespace tessel::abcd::driver {

/// The yardstick of the executor's rate; all zero with --dgemm-size 0. cpu: the machine's DGEMM
/// rate in this run (every rank at once, its own threads, rates summed). cuda: the devices' own
/// cuBLAS rate at the problem's tile shapes, from the cuda rate table (cached, else measured
/// once now; --rate-table names one), times the devices of the run.
struct DgemmReference {
    double rate = 0;        ///< the better of the two (cuda: cuBLAS at the problem's tile shapes)
    double one_call = 0;    ///< threaded calls
    double concurrent = 0;  ///< one single-threaded call per core
    bool cublas = false;    ///< cuda: the rates below, from the rate table
    int devices = 0;        ///< cuda: devices of the run (ranks x devices per rank)
    size_type square = 0;   ///< cuda: n of the square cuBLAS GEMM n³ (<= the table's largest size)
    double square_rate = 0; ///< cuda: its rate times the devices
    std::string table;      ///< cuda: where the table came from
};

/// The reference for `backend` and its line. Collective.
DgemmReference measure_dgemm_reference(const Args& a, const Problem& problem, Backend backend, int devices,
                                       MPI_Comm comm, bool say);

/// One executor run of --repeat: its wall time (the most over the ranks) and this rank's host
/// buffers registered with the device in it (a later run reuses the first's).
struct RepeatRecord {
    double seconds = 0;
    size_type registered_bytes = 0;
    double register_seconds = 0;
};

/// What the reported executor run measured (the best of --repeat).
struct ExecutorTiming {
    ExecutionResult result;            ///< this rank's
    double seconds = 0;                ///< wall time, the most over the ranks
    std::vector<RepeatRecord> repeats; ///< every run, in order
    nlohmann::json device_traffic;     ///< this process's host-device traffic in that run
};

template <typename T>
struct ExecutorRun : ExecutorTiming {
    TileStore<T> c_owned;  ///< the C tiles this rank owns
};

/// The executor on this rank's part of `plan`, timed between barriers, --repeat times on the
/// same A tiles (the tile buffers kept between runs, as CCSD's iterations keep them): the
/// fastest run's figures, the last run's C tiles (every run makes the same). An error here may leave other ranks waiting on messages, so it ends the
/// job. Collective.
template <typename T>
ExecutorRun<T> run_executor(const Args& a, const Problem& problem, const Plan& plan, TileStore<T>& a_tiles,
                            const RunSetup& setup, MPI_Comm comm);

/// The executor's counters over every rank (sums; the longest wait).
struct ExecutorTotals {
    double flops = 0, b_generation_seconds = 0, a_wait_seconds = 0;
    long long gemms = 0;
    long long a_sent = 0, c_sent = 0, host_to_device = 0, device_to_host = 0;
    double rate = 0;           ///< flops per second of the executor's wall time
    bool flops_agree = false;  ///< flops and GEMMs as the inspector counted them
};

/// Sums this rank's counters over `comm`. Collective.
ExecutorTotals sum_over_ranks(const ExecutionResult& er, double seconds, const Plan& plan, MPI_Comm comm);

/// The executor's lines: per rank with --verbose, the totals on rank 0 when `say`.
void print_executor(const Args& a, const ExecutionResult& er, const ExecutorTotals& totals, const Plan& plan,
                    double seconds, const DgemmReference& dgemm, Backend backend, int rank, bool say);

template <typename T>
struct ExecutedStep {
    ExecutorRun<T> run;
    ExecutorTotals totals;
};

/// The executor step of both runs (generated problems and real molecules): this rank's own A
/// tiles (2D-cyclic, made before the timed executor, phase generate_a), the executor (phase
/// executor), its totals over the ranks and its lines. Collective.
template <typename T>
ExecutedStep<T> generate_a_and_execute(const Args& a, const Problem& problem, const Plan& plan, const RunSetup& setup,
                                       const DgemmReference& dgemm, PhaseTimes& phases, MPI_Comm comm, bool say);

}  // namespace tessel::abcd::driver
