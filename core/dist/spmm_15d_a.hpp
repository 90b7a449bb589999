// 1.5D A-stationary SpMM (Selvitopi et al. 2021, sA-1.5D), bulk synchronous.
#pragma once

#include "core/dist/grid_spmm.hpp"

namespace tessel::dist {

/// On an r x c grid, rank (i, j) holds A(i, j), fine block j*r + i of B's rows and fine block
/// i*c + j of C's rows (all k columns). multiply():
///   B(j) := MPI_Allgatherv of the fine blocks j*r .. j*r+r-1 in process column j;
///   Cᵖ(i) := A(i, j)·B(j), the partial sum of row block i;
///   C(i*c + j) := MPI_Reduce_scatter(Σ_j Cᵖ(i)) in process row i.
/// Communication O(2α log √p + β k(m + n)/√p) on a √p x √p grid; memory nnz/p + k(m + n)/√p.
template <typename ValueType, typename IndexType>
class Spmm15dA : public GridSpmm<ValueType, IndexType> {
public:
    /// Collective. See GridSpmm for `local_a`. Throws DimensionMismatch, MpiError.
    Spmm15dA(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
             std::vector<Csr<ValueType, IndexType>> local_a, const DistOptions& options = {});

    void multiply(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) override;

private:
    DenseMatrix<ValueType> b_gathered_, c_partial_;
};

}  // namespace tessel::dist
