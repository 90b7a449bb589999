// The machine's DGEMM rate, measured in the same run: the yardstick for the fraction of peak.
#pragma once

#include "core/types.hpp"

namespace tessel::abcd {

/// FLOP/s of BLAS dgemm C := C + A·B on n x n matrices with `threads` BLAS threads: one warm-up,
/// then the best of `repeats` timed calls (2n³ flops each). Returns 0 when n <= 0.
double measure_dgemm_rate(size_type n, int threads, int repeats = 3);

}  // namespace tessel::abcd
