// The device half of the cuda rate table (gemm_rate_table.hpp): cuBLAS GEMM rates by tile
// shape and the copy rates between pinned host memory and device 0, measured as the cuda
// executor (cuda_executor.cpp) meets them. Without CUDA in the build the function throws
// NotCompiled (driver/cuda_stubs.cpp, from the list below).
#pragma once

#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

struct CudaRates {
    std::vector<double> rates;         ///< FLOP/s, [m][n][k] over the sizes
    double h2d_seconds_per_byte = 0;
    double d2h_seconds_per_byte = 0;
};

/// Every shape of sizes³ issued round-robin to four streams of device 0 for about
/// `seconds_per_shape` of wall time (best of three rounds), then 64 MiB pinned copies each way
/// (best of three). Throws CudaError without a device.
CudaRates measure_cuda_rates(bool double_precision, const std::vector<size_type>& sizes, double seconds_per_shape);

}  // namespace tessel::abcd

// The rate table's device entry point, listed once for the stand-in of builds without CUDA.
#define TESSEL_ABCD_RATES_CUDA_ENTRY_POINTS(X) \
    X(abcd::measure_cuda_rates, (abcd::CudaRates), (bool, const std::vector<size_type>&, double))
