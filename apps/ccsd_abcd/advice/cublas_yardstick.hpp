// The cuda executor's yardstick: the device's own cuBLAS GEMM rate at the problem's tile shapes
// (issue 33), from the cuda rate table (gemm_rate_table.hpp: measured once on the device and
// cached), so that the executor line says how close the run came to what the card's cuBLAS does
// on the same GEMMs, and at one square size for comparison across problems.
#pragma once

#include "apps/ccsd_abcd/advice/gemm_rate_table.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

struct CublasYardstick {
    /// Σ 2mnk over every tile GEMM of the product / Σ of their times in the table: the rate one
    /// device would run this product's GEMMs at, with nothing else to do (FLOP/s).
    double at_tiles = 0;
    size_type square = 0;    ///< the square size below (the requested one, or the table's largest)
    double at_square = 0;    ///< the table's rate at square³
};

/// The yardstick of `problem` from a cuda table; `square` is clamped to the table's largest size.
CublasYardstick cublas_yardstick(const Problem& problem, const GemmRateTable& table, size_type square);

}  // namespace tessel::abcd
