// Shared base of the SpMM variants on an r x c process grid: the grid, its row and column
// communicators, this rank's blocks of A and the local kernel call.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/comm/topology.hpp"
#include "core/dist/dist_spmm.hpp"
#include "core/operator/spmm_operator.hpp"

namespace tessel::dist {

/// Length of block `b` of a list of offsets (rows of a block row, width of a stage, ...).
inline size_type extent(const std::vector<size_type>& offsets, int b) { return offsets[b + 1] - offsets[b]; }

/// The process row or the process column of a rank: the communicators of a broadcast.
enum class Along { row, column };

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

    /// Where a multiply starts: b and c checked (DistSpmm::prepare), the layout, the grid's
    /// r x c and this rank's (i, j).
    struct Place {
        const DistLayout& layout;
        int r, c, i, j;
    };
    Place start(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) const {
        this->prepare(b, c);
        return {layout_, layout_.grid_rows, layout_.grid_cols, i_, j_};
    }

    /// `count` elements from member `root` of this rank's process row or column into `stage` on
    /// every member (the root copies its own `mine`; others pass null), timed as "comm".
    template <typename T>
    void broadcast(const T* mine, T* stage, size_type count, int root, Along along) {
        auto timing = this->times_.scope("comm");
        if ((along == Along::column ? i_ : j_) == root) std::copy_n(mine, count, stage);
        TESSEL_MPI_CHECK(MPI_Bcast(stage, comm::mpi_count(count), comm::mpi_datatype<T>(), root,
                                   along == Along::column ? col_comm_.get() : row_comm_.get()));
    }
    /// On the root of a broadcast along `along`: `bytes` sent to each other member, counted.
    void count_broadcast(size_type bytes, int root, Along along) {
        const bool column = along == Along::column;
        const int members = column ? layout_.grid_rows : layout_.grid_cols, self = column ? i_ : j_;
        if (self != root) return;
        for (int q = 0; q < members; ++q)
            if (q != self) this->counters_.add_sent(column ? cell(q, j_) : cell(i_, q), bytes);
    }
    /// broadcast, counted.
    template <typename T>
    void broadcast_counted(const T* mine, T* stage, size_type count, int root, Along along) {
        count_broadcast(count * static_cast<size_type>(sizeof(T)), root, along);
        broadcast(mine, stage, count, root, along);
    }

    /// Nonzeros of A(i, s) for every stage s of the C-stationary variants (rank (i, j) holds the
    /// stages s ≡ j mod c), shared along the process row. Collective over the row.
    std::vector<size_type> stage_nnz_along_row() const;
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
