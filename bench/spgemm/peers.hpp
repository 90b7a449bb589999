// Peer SpGEMM libraries for tessel-bench-spgemm; each is compiled in only when installed.
#pragma once

#include <memory>
#include <string>

#include "core/formats/csr.hpp"

namespace tessel::bench::spgemm_peers {

/// One peer's C := A·B on operands it has already converted to its own format (not timed).
class PeerProduct {
public:
    virtual ~PeerProduct() = default;
    virtual std::string name() const = 0;
    /// What exactly is called and timed.
    virtual std::string detail() const = 0;
    /// Runs C := A·B once and returns its seconds; keeps C's entry count and value sum.
    virtual double run() = 0;
    size_type nnz = 0;
    double value_sum = 0;
};

#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
std::string graphblas_version();
void graphblas_initialize(int threads);
void graphblas_finalize();
/// GrB_mxm(C, NULL, NULL, PLUS_TIMES_FP64, A, B) then GrB_wait(C, MATERIALIZE).
template <typename IndexType>
std::unique_ptr<PeerProduct> make_graphblas(const Csr<double, IndexType>& a,
                                            const Csr<double, IndexType>& b);
#endif

#ifdef TESSEL_BENCH_HAVE_EIGEN
std::string eigen_version();
/// C = A * B with Eigen::SparseMatrix<double, RowMajor> (its serial conservative product).
template <typename IndexType>
std::unique_ptr<PeerProduct> make_eigen(const Csr<double, IndexType>& a,
                                        const Csr<double, IndexType>& b);
#endif

}  // namespace tessel::bench::spgemm_peers
