// Peer SpGEMM libraries for tessel-bench-spgemm; each is compiled in only when installed.
#pragma once

#include <string>
#include <vector>

#include "core/formats/csr.hpp"

namespace tessel::bench::spgemm_peers {

/// Times of one peer's C := A·B and what it produced (for the cross-check).
struct PeerRun {
    std::vector<double> seconds;  // every timed repetition
    size_type nnz = 0;            // entries of C
    double value_sum = 0;         // Σ C(i,j), compared with tessel's
    std::string detail;           // what exactly was called
};

#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
std::string graphblas_version();
void graphblas_initialize(int threads);
void graphblas_finalize();
/// GrB_mxm(C, NULL, NULL, PLUS_TIMES_FP64, A, B) then GrB_wait(C, MATERIALIZE), timed
/// `repeat` times after one warm-up; importing A and B is not timed.
template <typename IndexType>
PeerRun graphblas_multiply(const Csr<double, IndexType>& a, const Csr<double, IndexType>& b,
                           int repeat);
#endif

#ifdef TESSEL_BENCH_HAVE_EIGEN
std::string eigen_version();
/// C = A * B with Eigen::SparseMatrix<double, RowMajor> (its serial conservative product),
/// timed `repeat` times after one warm-up.
template <typename IndexType>
PeerRun eigen_multiply(const Csr<double, IndexType>& a, const Csr<double, IndexType>& b,
                       int repeat);
#endif

}  // namespace tessel::bench::spgemm_peers
