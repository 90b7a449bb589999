// 2D C-stationary SpMM with one-sided MPI (Selvitopi et al. 2021, sC-2D-AS; MPI RMA in place
// of NVSHMEM).
#pragma once

#include "core/comm/window.hpp"
#include "core/dist/grid_spmm.hpp"

namespace tessel::dist {

/// Same blocks as Spmm2dC. A's blocks (row_ptr, col_idx, values) and B's blocks live in MPI
/// windows; inside one passive-target epoch rank (i, j) walks the stages from s = (i + j) mod S,
/// fetching A(i, s) and B(s, j) with MPI_Rget one stage ahead of the multiply
/// C(i, j) += A(i, s)·B(s, j). Nobody waits for anybody until the closing barrier.
template <typename ValueType, typename IndexType>
class Spmm2dCAsync : public GridSpmm<ValueType, IndexType> {
public:
    /// Collective (windows, and the nonzero counts of every block of A). Throws
    /// DimensionMismatch, MpiError.
    Spmm2dCAsync(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
                 std::vector<Csr<ValueType, IndexType>> local_a, const DistOptions& options = {});

    void multiply(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) override;

private:
    comm::Window<size_type> ptr_win_;
    comm::Window<IndexType> col_win_;
    comm::Window<ValueType> val_win_, b_win_;
    std::vector<size_type> stage_nnz_;     // nnz of A(i, s)
    std::vector<size_type> ptr_offset_;    // offset of A(i, s)'s row_ptr in its owner's window
    std::vector<size_type> nz_offset_;     // offset of A(i, s)'s nonzeros in its owner's windows
    std::vector<size_type> b_offset_;      // offset of B(s, j) in its owner's window
};

}  // namespace tessel::dist
