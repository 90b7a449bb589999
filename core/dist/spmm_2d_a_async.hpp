// 2D A-stationary SpMM with one-sided MPI (Selvitopi et al. 2021, sA-2D-AS; MPI RMA in place
// of NVSHMEM).
#pragma once

#include "core/comm/window.hpp"
#include "core/dist/grid_spmm.hpp"

namespace tessel::dist {

/// Same blocks as Spmm2dA. B and C blocks live in MPI windows; inside one passive-target epoch
/// (MPI_Win_lock_all) rank (i, j) walks the stages from s = (i + j) mod S (so that neighbours do
/// not all hit one owner), fetching B(j, s) with MPI_Rget while it multiplies the previous one,
/// and adds Cʲ(i, s) = A(i, j)·B(j, s) into the owner of C(i, s) with MPI_Raccumulate(MPI_SUM).
/// No process waits for another until the closing flush and barrier.
template <typename ValueType, typename IndexType>
class Spmm2dAAsync : public GridSpmm<ValueType, IndexType> {
public:
    /// Collective (allocates the windows). Throws DimensionMismatch, MpiError.
    Spmm2dAAsync(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
                 std::vector<Csr<ValueType, IndexType>> local_a, const DistOptions& options = {});

    void multiply(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) override;

private:
    comm::Window<ValueType> b_win_, c_win_;
    std::vector<size_type> b_offset_;  // stage s -> element offset of B(j, s) in its owner's window
    std::vector<size_type> c_offset_;  // stage s -> element offset of C(i, s) in its owner's window
};

}  // namespace tessel::dist
