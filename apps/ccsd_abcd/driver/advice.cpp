#include "apps/ccsd_abcd/driver/advice.hpp"

#include <malloc.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/ccsd_abcd/advice/tiling_advice.hpp"
#include "apps/ccsd_abcd/advice/tiling_candidates.hpp"
#include "apps/ccsd_abcd/driver/mpi.hpp"
#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/executor/tile_memory.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "core/app/machine.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::abcd::driver {

namespace {

// The executor's wall time on `p` over every rank (max), as a run of the app times it (from
// memory not touched before); an executor error aborts the job as there.
template <typename T>
double measure_executor(const Problem& p, const InspectorOptions& io, Backend backend, MPI_Comm comm) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    Plan plan = collective(comm, [&] { return inspect(p, io); });
    TileStore<T> a_tiles = collective(comm, [&] { return make_local_a<T>(p, plan.grid, rank); });
    ExecutorOptions eo;
    eo.backend = backend;
    eo.comm = ranks > 1 ? comm : MPI_COMM_NULL;
    eo.rank = rank;
    TileStore<T> c;
    TESSEL_MPI_CHECK(MPI_Barrier(comm));
    Timer t;
    try {
        execute(p, plan, a_tiles, c, eo);
    } catch (const Error& e) {
        std::fprintf(stderr, "tessel-abcd: rank %d: %s\n", rank, e.message().c_str());
        if (ranks > 1) MPI_Abort(comm, 1);
        throw app::QuietExit{1};
    }
    TESSEL_MPI_CHECK(MPI_Barrier(comm));
    double seconds = t.seconds();
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm));
    // Memory given back to the system: the next run touches fresh pages, as a new process does.
    tile_memory::trim();
    malloc_trim(0);
    return seconds;
}

// This machine's table for the backend (cpu, or device 0 with cuda), or the file --rate-table
// names, which must be one for the backend.
GemmRateTable rate_table_for(const Args& a, bool double_precision, Backend backend, std::string& note) {
    const bool cuda = backend == Backend::cuda;
    if (a.rate_table.empty()) return machine_rate_table(double_precision, a.calibrate, &note, cuda);
    GemmRateTable table = read_rate_table(a.rate_table);
    if (table.backend != (cuda ? "cuda" : "cpu"))
        TESSEL_INVALID_INPUT(a.rate_table, 0, "is a " + table.backend + " rate table; the run's backend is " +
                                                  (cuda ? "cuda" : "cpu"));
    note = "from " + a.rate_table;
    return table;
}

// The cuda model needs the inspector's blocks and chunks; a tiling that does not fit the
// device memory budget is predicted infinite (and never recommended).
TilingPrediction predict_cuda(const TilingCandidate& c, const GemmRateTable& table, const InspectorOptions& io,
                              int host_threads) {
    Plan plan;
    try {
        plan = inspect(c.problem, io);
    } catch (const OutOfMemoryBudget&) {
        TilingPrediction none;
        none.label = c.label;
        none.parameter = c.parameter;
        none.predicted_seconds = std::numeric_limits<double>::infinity();
        return none;
    }
    return predict_tiling_cuda(c.problem, plan, table, host_threads, c.label, c.parameter);
}

// The candidates predicted (rank 0 holds the rate table), measured with --measure-candidates,
// the table printed; returns the index of the recommended candidate (the same on every rank).
template <typename T>
std::size_t advise_tiling(const Args& a, std::vector<TilingCandidate>& candidates, const InspectorOptions& io,
                          Backend backend, MPI_Comm comm, bool say) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    const bool cuda = backend == Backend::cuda;
    const int threads = std::max(1, std::min(omp_get_max_threads(), cores_allowed()));
    const int workers = ranks * (cuda ? io.devices : threads);
    std::vector<TilingPrediction> predictions;
    std::string note;
    int recommended = collective(comm, [&] {
        if (rank != 0) return 0;
        const GemmRateTable table = rate_table_for(a, std::is_same_v<T, double>, backend, note);
        for (const auto& c : candidates)
            predictions.push_back(cuda ? predict_cuda(c, table, io, threads)
                                       : predict_tiling(c.problem, table, workers, c.label, c.parameter));
        return static_cast<int>(recommend_tiling(predictions));
    });
    TESSEL_MPI_CHECK(MPI_Bcast(&recommended, 1, MPI_INT, 0, comm));
    // Best of two runs each: on a shared machine one run can be disturbed by other processes.
    if (a.measure_candidates)
        for (std::size_t x = 0; x < candidates.size(); ++x) {
            const double s = std::min(measure_executor<T>(candidates[x].problem, io, backend, comm),
                                      measure_executor<T>(candidates[x].problem, io, backend, comm));
            if (rank == 0) predictions[x].measured_seconds = s;
        }
    if (say) {
        std::printf("tiling advice: %s GEMM rates per tile shape %s; %d %s\n", cuda ? "cuBLAS" : "cpu", note.c_str(), workers,
                    cuda ? "device(s) (ranks x devices)" : "worker(s) (ranks x threads)");
        std::fputs(advice_table(predictions, static_cast<std::size_t>(recommended)).c_str(), stdout);
        std::fflush(stdout);
    }
    return static_cast<std::size_t>(recommended);
}

}  // namespace

template <typename T>
bool apply_tiling_options(const Args& a, Problem& problem, const RunSetup& setup, MPI_Comm comm, bool say) {
    if (a.advise_tiles || a.tiling == "auto") {
        MoleculeOptions molecule = a.molecule;
        molecule.seed = a.seed;
        auto candidates = collective(comm, [&] {
            return tiling_candidates(problem, a.generator == "molecule" ? &molecule : nullptr);
        });
        const std::size_t pick = advise_tiling<T>(a, candidates, setup.inspector, setup.backend, comm, say);
        if (a.tiling != "auto") return false;
        problem = std::move(candidates[pick].problem);
        if (say) std::printf("tiling auto: running %s: %s\n", candidates[pick].label.c_str(), problem.description.c_str());
    } else if (a.calibrate) {
        const int rank = rank_of(comm);
        std::string note;
        collective(comm, [&] {
            if (rank == 0) machine_rate_table(std::is_same_v<T, double>, true, &note, setup.backend == Backend::cuda);
        });
        if (say) std::printf("GEMM rate table %s\n", note.c_str());
        return false;
    }
    return true;
}

template bool apply_tiling_options<double>(const Args&, Problem&, const RunSetup&, MPI_Comm, bool);
template bool apply_tiling_options<float>(const Args&, Problem&, const RunSetup&, MPI_Comm, bool);

}  // namespace tessel::abcd::driver
