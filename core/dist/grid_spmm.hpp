// Shared base of the SpMM variants on an r x c process grid: the grid, its row and column
// communicators, this rank's blocks of A and the local kernel call.
#pragma once

#include <mpi.h>

#include "core/comm/mpi_types.hpp"
#include "core/comm/topology.hpp"
#include "core/operator/spmm_operator.hpp"
#include "core/dist/dist_spmm.hpp"

namespace tessel::dist {

/// Rank (i, j) of the grid is rank i*c + j of the communicator; its row communicator holds
/// (i, 0 .. c-1) ordered by j, its column communicator (0 .. r-1, j) ordered by i.
template <typename ValueType, typename IndexType>
class GridSpmm : public DistSpmm<ValueType, IndexType> {
public:
    DistAlgorithm algorithm() const override { return algorithm_; }
    const DistLayout& layout() const { return layout_; }

protected:
    /// Collective. `local_a` holds the blocks a_ranges(algorithm, layout, rank) with local
    /// indices (extract_block). Throws DimensionMismatch (grid size, layout, blocks), MpiError.
    GridSpmm(DistAlgorithm algorithm, MPI_Comm comm, const comm::Topology& topology,
             DistLayout layout, std::vector<Csr<ValueType, IndexType>> local_a,
             const DistOptions& options);

    int cell(int i, int j) const { return i * layout_.grid_cols + j; }
    /// c := A·b with the local kernel of options_.backend, timed as "compute". On cuda the
    /// A-stationary variants' own blocks (a_) stay on the device; other blocks (C-stationary
    /// stages received from other ranks) are copied per call.
    void local_spmm(const Csr<ValueType, IndexType>& a, DenseView<const ValueType> b,
                    DenseView<ValueType> c);

    DistAlgorithm algorithm_;
    comm::Communicator comm_, row_comm_, col_comm_;
    DistLayout layout_;
    int rank_ = 0, i_ = 0, j_ = 0;
    std::vector<Csr<ValueType, IndexType>> a_;
    std::vector<SpmmOperator<ValueType, IndexType>> device_a_;  // cuda: a_ resident on the GPU
    DistOptions options_;
};

}  // namespace tessel::dist
