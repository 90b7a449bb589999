// The machine's DGEMM rate, measured in the same run: the yardstick for the fraction of peak.
#pragma once

#include "core/types.hpp"

namespace tessel::abcd {

/// Rates of BLAS dgemm C := C + A·B on n x n matrices, in FLOP/s (2n³ per call), each the best
/// of `repeats` timed rounds after one warm-up round:
struct DgemmRate {
    double one_call = 0;    ///< one dgemm call with `threads` BLAS threads
    double concurrent = 0;  ///< `threads` single-threaded dgemm calls at once (own matrices), summed
    /// The yardstick: the higher of the two (on small virtual machines a threaded call may scale
    /// worse than independent per-core calls, which is how the executor uses the cores).
    double best() const { return one_call > concurrent ? one_call : concurrent; }
};

/// Measures both rates; all zero when n <= 0.
DgemmRate measure_dgemm_rate(size_type n, int threads, int repeats = 3);

}  // namespace tessel::abcd
