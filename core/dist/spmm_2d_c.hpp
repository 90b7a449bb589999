// 2D C-stationary SpMM (Selvitopi et al. 2021, sC-2D, SUMMA), bulk synchronous.
#pragma once

#include "core/dist/grid_spmm.hpp"

namespace tessel::dist {

/// On an r x c grid with S stages (A's columns and B's rows split into S blocks), rank (i, j)
/// holds A(i, s) for s ≡ j (mod c), B(s, j) for s ≡ i (mod r) and C(i, j). Stage s:
///   MPI_Bcast of A(i, s) (row_ptr, col_idx, values) from (i, s mod c) in process row i;
///   MPI_Bcast of B(s, j) from (s mod r, j) in process column j;
///   C(i, j) += A(i, s)·B(s, j).
/// Communication O(2α √p log √p + β (nnz + nk) log √p / √p) with S = √p.
template <typename ValueType, typename IndexType>
class Spmm2dC : public GridSpmm<ValueType, IndexType> {
public:
    /// Collective (it shares the nonzero counts of A's blocks along process rows).
    /// Throws DimensionMismatch, MpiError.
    Spmm2dC(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
            std::vector<Csr<ValueType, IndexType>> local_a, const DistOptions& options = {});

    void multiply(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) override;

private:
    std::vector<size_type> stage_nnz_;  // nnz of A(i, s) for every stage s
    DenseMatrix<ValueType> b_stage_, c_partial_;
};

}  // namespace tessel::dist
