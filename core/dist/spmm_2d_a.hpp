// 2D A-stationary SpMM (Selvitopi et al. 2021, sA-2D), bulk synchronous.
#pragma once

#include "core/dist/grid_spmm.hpp"

namespace tessel::dist {

/// On an r x c grid with S stages (k split into S blocks), rank (i, j) holds A(i, j), the B
/// blocks B(j, s) with s ≡ i (mod r) and the C blocks C(i, s) with s ≡ j (mod c). Stage s:
///   MPI_Bcast of B(j, s) from (s mod r, j) in process column j;
///   Cʲ(i, s) := A(i, j)·B(j, s);
///   C(i, s) := MPI_Reduce(Σ_j Cʲ(i, s)) to (i, s mod c) in process row i.
/// Communication O(2α √p log √p + β k(m + n) log √p / √p) with S = √p; memory (nnz + 2k(m+n))/p.
template <typename ValueType, typename IndexType>
class Spmm2dA : public GridSpmm<ValueType, IndexType> {
public:
    /// Collective. Throws DimensionMismatch, MpiError.
    Spmm2dA(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
            std::vector<Csr<ValueType, IndexType>> local_a, const DistOptions& options = {});

    void multiply(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) override;

private:
    DenseMatrix<ValueType> b_stage_, c_partial_;
};

}  // namespace tessel::dist
