// The executor: runs a plan on this rank (cpu: BLAS tile GEMMs as tasks over the cores; cuda:
// B made on the device, cuBLAS calls batched by tile shape on streams, double-buffered A
// chunks), with the MPI exchange of A and C tiles.
#pragma once

#include <mpi.h>

#include <string>

#include "apps/ccsd_abcd/executor/cuda_schedule.hpp"
#include "apps/ccsd_abcd/executor/tile_store.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "core/types.hpp"

namespace tessel::abcd {

struct ExecutorOptions {
    Backend backend = Backend::automatic;
    /// The ranks of the grid (rank r of comm is grid rank r); MPI_COMM_NULL for one process.
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    /// cuda: the process's devices are first_device, first_device + 1, ... (mod the count).
    int first_device = 0;
    /// cuda: a chunk of A goes up in parts of about this many bytes, each part's GEMMs starting
    /// while the next part is on its way.
    size_type cuda_part_bytes = size_type(64) << 20;
    /// cuda: a part's C tiles go down wave by wave, each about this many flops of a stream's
    /// GEMMs (cuda_schedule.hpp).
    double cuda_wave_flops = wave_flops;
    /// cpu: GEMM tasks smaller than this many columns are not split further.
    size_type min_split_columns = 64;
    /// cuda: register the host buffers of A and C tiles with the device (cudaHostRegister, once
    /// per cached buffer) and copy them straight from and to the device; off (or
    /// TESSEL_ABCD_HOST_REGISTER=0): every tile goes through the pinned staging windows.
    bool register_host_tiles = true;
    bool verbose = false;
};

/// What one rank's executor did, measured.
struct ExecutionResult {
    std::string backend;        ///< "cpu: ..." / "cuda: ..." (which kernel ran and why)
    double seconds = 0;         ///< wall time of the executor on this rank
    double flops = 0;           ///< 2·m·n·k summed over the tile GEMMs it ran
    size_type gemms = 0;        ///< tile GEMMs A(i,k)·B(k,c) it ran
    size_type calls = 0;        ///< cuda: cuBLAS calls that ran them (batched by tile shape)
    double device_setup_seconds = 0;  ///< cuda: streams, cuBLAS handles, buffers, the schedule uploaded
    /// cuda: the setup's parts, summed over the devices: the schedule worked out on the host,
    /// streams + cuBLAS handles + events, device buffers allocated, the schedule's arrays up.
    struct SetupParts {
        double schedule = 0, streams = 0, buffers = 0, upload = 0;
    } device_setup_parts;
    /// cuda: the first block of the first device, seconds from its start there (events): B made
    /// (block_timeline.hpp), the first and the last part of A up, the first C tile going down, the
    /// last GEMM done, the last C tile down; zero where a point was not reached (a rank with no
    /// block).
    struct DeviceTimeline {
        double b_made = 0, first_a_part_up = 0, last_a_part_up = 0, first_c_down = 0, gemms_done = 0, c_down_done = 0;
    } device_timeline;
    size_type blocks = 0, chunks = 0;
    double b_generation_seconds = 0;  ///< summed over threads: making B tiles on demand
    double a_wait_seconds = 0;        ///< blocked waiting for A tiles from other ranks
    size_type h2d_bytes = 0, d2h_bytes = 0;  ///< host <-> device (cpu: what a device would move)
    /// cuda: bytes of A tiles the host copied into pinned memory, of C tiles it copied out of it,
    /// and the host seconds those copies (and B's from a file) took, waits for the device excluded.
    /// Tiles whose host buffers are registered with the device are not copied by the host.
    size_type a_packed_bytes = 0, c_unpacked_bytes = 0;
    double host_copy_seconds = 0;
    /// cuda: host tile buffers registered with the device in this run (buffers registered in an
    /// earlier run stay so while cached, and cost nothing here), and the seconds that took.
    size_type registered_bytes = 0;
    double register_seconds = 0;
    size_type a_sent_bytes = 0, a_received_bytes = 0, c_sent_bytes = 0, c_received_bytes = 0;
};

/// The backend that runs: `requested` unless automatic, which picks cuda when this build has
/// it and a device is present, else cpu. `why` (if given) says which and why.
Backend choose_backend(Backend requested, std::string* why = nullptr);

/// The A tiles that `rank` owns (2D-cyclic: A(i, k) on grid (i mod p, k mod q)), made from
/// the problem's tile source; other positions are left empty.
template <typename ValueType>
TileStore<ValueType> make_local_a(const Problem& problem, const ProcessGrid& grid, int rank);

/// Runs this rank's part of `plan`: C = A·B for its columns, block by block and chunk by chunk,
/// B tiles made on demand and dropped after their block, A tiles received from their owners,
/// C tiles sent to theirs. On return `c_owned` holds every tile of C this rank owns (2D-cyclic).
/// Collective over options.comm. Throws NotCompiled (cuda without CUDA in the build),
/// CudaError, MpiError, OutOfMemoryBudget.
template <typename ValueType>
ExecutionResult execute(const Problem& problem, const Plan& plan, TileStore<ValueType>& a,
                        TileStore<ValueType>& c_owned, const ExecutorOptions& options);

/// The cpu executor (cpu_executor.cpp).
template <typename ValueType>
ExecutionResult execute_cpu(const Problem& problem, const Plan& plan, TileStore<ValueType>& a,
                            TileStore<ValueType>& c_owned, const ExecutorOptions& options);

/// The cuda executor (cuda_executor.cpp; without CUDA a stand-in that throws NotCompiled, driver/cuda_stubs.cpp).
template <typename ValueType>
ExecutionResult execute_cuda(const Problem& problem, const Plan& plan, TileStore<ValueType>& a,
                             TileStore<ValueType>& c_owned, const ExecutorOptions& options);

/// The cuda executor keeps each device's streams, cuBLAS handles and buffers for its next run
/// (as CCSD iterates): the device memory it holds on CUDA device `device` (0 without CUDA), to
/// be counted as free when a plan is made.
size_type kept_device_bytes(int device);
/// Frees what the cuda executor keeps on every device (nothing without CUDA).
void release_kept_devices();


}  // namespace tessel::abcd

// The executor's device entry points, listed once for the stand-ins of builds without CUDA
// (driver/cuda_stubs.cpp, TESSEL_CUDA_STUB_SPECIALIZATION of core/cuda/entry_points.hpp).
#define TESSEL_ABCD_EXECUTOR_CUDA_ENTRY_POINTS(X, T)                                                    \
    X(abcd::execute_cuda<T>, (abcd::ExecutionResult),                                                   \
      (const abcd::Problem&, const abcd::Plan&, abcd::TileStore<T>&, abcd::TileStore<T>&, const abcd::ExecutorOptions&))
