// Verification against a dense reference GEMM: A and B made dense, one BLAS GEMM, and the
// relative Frobenius error of the block-sparse result.
#pragma once

#include <string>

#include "apps/ccsd_abcd/executor/tile_store.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

struct Verification {
    double relative_error = 0;  ///< ‖C - C_ref‖_F / ‖C_ref‖_F over the whole M x N matrix
    double tolerance = 0;       ///< 1e-12 in double, 1e-4 in float
    double reference_norm = 0;  ///< ‖C_ref‖_F
    bool passed = false;
    double seconds = 0;
};

/// The dense product C_ref = A·B in double precision (A and B dense, zeros outside their
/// shapes, values from the problem's tile source rounded to ValueType as the executor saw
/// them) by one cblas_dgemm over the whole matrices, compared with `c_tiles` (every tile of
/// `c_shape`; elements outside shape(C) count as zero, so a wrong shape shows as an error).
/// Throws InvalidInput "--verify: the dense reference needs 5.2 GiB (more than 4 GiB); verify
/// a smaller problem" when M·K + K·N + 2·M·N doubles exceed 4 GiB.
template <typename ValueType>
Verification verify_dense(const Problem& problem, const TileShape& c_shape, const TileStore<ValueType>& c_tiles);

/// "" when `v` passed, else the line that says why it failed: "verify: relative error nan
/// against the dense reference is not within the tolerance 1e-12" (a NaN or infinite error is a
/// failure, never a pass).
std::string verification_failure(const Verification& v);

/// The largest dense reference verify_dense accepts, in bytes.
inline constexpr double verify_dense_limit_bytes = 4.0 * 1024 * 1024 * 1024;

}  // namespace tessel::abcd
