// tessel-abcd's last steps: R verified against a dense reference, written to --output, and
// the run's results in the metrics document.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>

#include "apps/ccsd_abcd/driver/args.hpp"
#include "apps/ccsd_abcd/driver/execute.hpp"
#include "apps/ccsd_abcd/results/dense_verification.hpp"

namespace tessel::abcd::driver {

struct CheckedResult {
    Verification verification;
    bool verified = false;  ///< --verify ran
    bool failed() const { return verified && !verification.passed; }
};

/// --verify (on rank 0, all tiles gathered there) and --output (rank 0 writes R's norms, and
/// its tiles with --output-tiles). A failed verification prints its line on stderr. Collective.
template <typename T>
CheckedResult verify_and_write(const Args& a, const Problem& problem, const Plan& plan, const TileStore<T>& c_owned,
                               double flops, MPI_Comm comm, bool say);

/// The executor's results, the DGEMM reference, the bytes moved and the verification in the
/// metrics document.
void record_results(nlohmann::json& doc, const Args& a, const ExecutorTiming& run, const ExecutorTotals& totals, const Plan& plan, const DgemmReference& dgemm, Backend backend,
                    const CheckedResult& checked);

}  // namespace tessel::abcd::driver
