// Distributed SpMM C := A·B: the algorithms, how operands are cut into blocks, and the
// interface every distributed variant implements.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/comm/comm_counters.hpp"
#include "core/comm/exchange_executor.hpp"
#include "core/dense.hpp"
#include "core/operator/spmm_operator.hpp"
#include "core/formats/csr.hpp"
#include "core/timer.hpp"
#include "core/types.hpp"

namespace tessel::dist {

/// The distributed SpMM variants (Selvitopi et al. 2021; Hidayetoglu 2021, section 3).
enum class DistAlgorithm {
    automatic,        // chosen by the cost model (tessel::partition::choose_dist_algorithm)
    a15d,             // 1.5D A-stationary: Allgather B in process columns, Reduce_scatter C in rows
    a2d,              // 2D A-stationary: per stage broadcast B, reduce C
    c2d,              // 2D C-stationary (SUMMA): per stage broadcast A and B
    a2d_async,        // 2D A-stationary, one-sided: MPI_Rget B, MPI_Accumulate C (passive target)
    c2d_async,        // 2D C-stationary, one-sided: MPI_Rget A and B (passive target)
    sm_direct,        // sender-multiplies, partial rows reduced by a direct sparse all-to-all
    sm_hierarchical   // sender-multiplies, partial rows reduced level by level (socket, node, ...)
};

std::string_view to_string(DistAlgorithm algorithm);
/// "auto", "1.5d-a", "2d-a", "2d-c", "2d-a-async", "2d-c-async", "sm-direct", "sm-hier";
/// throws InvalidInput otherwise.
DistAlgorithm parse_dist_algorithm(std::string_view name);
/// Every concrete variant, in a fixed order (for benchmarks and tests).
const std::vector<DistAlgorithm>& all_dist_algorithms();
/// True for the variants on an r x c grid (a15d .. c2d_async).
bool uses_process_grid(DistAlgorithm algorithm);

/// Rows [row_begin, row_end) x columns [col_begin, col_end) of a global matrix.
struct BlockRange {
    size_type row_begin = 0, row_end = 0, col_begin = 0, col_end = 0;
    size_type rows() const { return row_end - row_begin; }
    size_type cols() const { return col_end - col_begin; }
    bool operator==(const BlockRange&) const = default;
};

/// The blocks of a distributed dense matrix that one rank holds (row-major each).
template <typename ValueType>
struct DenseBlocks {
    std::vector<BlockRange> ranges;
    std::vector<DenseMatrix<ValueType>> blocks;

    /// Zero-filled blocks of the given ranges.
    static DenseBlocks allocate(const std::vector<BlockRange>& ranges);
    /// Copies of the given ranges of a global matrix.
    static DenseBlocks from_global(DenseView<const ValueType> global,
                                   const std::vector<BlockRange>& ranges);
    /// global(range) += block for every block (for gathering the result in tests).
    void add_to_global(DenseView<ValueType> global) const;
};

/// How A (m x n), B (n x k) and C (m x k) are cut: contiguous blocks given by offsets and an
/// r x c process grid, rank = i*c + j in the communicator. What the offsets mean depends on the
/// algorithm:
///   a15d: row_offsets has r*c+1 entries (grid row i owns fine blocks i*c .. i*c+c-1), col_offsets
///         c*r+1 (grid column j owns fine blocks j*r .. j*r+r-1), k_offsets {0, k}.
///   a2d, a2d_async: row_offsets r+1, col_offsets c+1, k_offsets S+1 (S stages).
///   c2d, c2d_async: row_offsets r+1, col_offsets S+1 (S stages), k_offsets c+1.
struct DistLayout {
    size_type m = 0, n = 0, k = 0;
    int grid_rows = 1, grid_cols = 1;
    std::vector<size_type> row_offsets, col_offsets, k_offsets;

    int ranks() const { return grid_rows * grid_cols; }
    /// Checks the offset counts for `algorithm` and that each list is non-decreasing from 0 to
    /// its dimension. Throws DimensionMismatch.
    void validate(DistAlgorithm algorithm) const;
};

/// The blocks of A, B and C that `rank` holds under `algorithm` and `layout` (grid variants):
///   a15d: A(i,j); B fine block j*r+i (all k); C fine block i*c+j (all k).
///   a2d:  A(i,j); B(j,s) for s = i mod r, i + r, ...; C(i,s) for s = j mod c, j + c, ...
///   c2d:  A(i,s) for s = j, j + c, ...; B(s,j) for s = i, i + r, ...; C(i,j).
std::vector<BlockRange> a_ranges(DistAlgorithm algorithm, const DistLayout& layout, int rank);
std::vector<BlockRange> b_ranges(DistAlgorithm algorithm, const DistLayout& layout, int rank);
std::vector<BlockRange> c_ranges(DistAlgorithm algorithm, const DistLayout& layout, int rank);

/// The block `range` of `a` with local indices (rows from range.row_begin, columns from
/// range.col_begin), columns sorted. Throws DimensionMismatch when the range is outside a.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> extract_block(const Csr<ValueType, IndexType>& a, const BlockRange& range);

/// Options shared by the variants.
struct DistOptions {
    /// Backend of the local SpMM. cuda: the sender-multiplies variants keep A, the partial
    /// rows and their reductions on the GPU (dist::DeviceSenderMultipliesSpmm, host blocks are
    /// copied in and out once per multiply); the A-stationary grid variants keep their blocks of
    /// A on the GPU and copy B and C per local SpMM, the C-stationary ones copy all three.
    Backend backend = Backend::cpu;
    /// cuda backend, sender-multiplies: hand device buffers to MPI when this MPI is CUDA-aware
    /// (comm::cuda_aware_mpi()); otherwise, and by default, messages are staged through pinned
    /// host memory.
    bool cuda_aware = false;
    /// Sender-multiplies: columns per minibatch, rounded up to a multiple of the cpu register
    /// factor (0 = all columns at once).
    size_type minibatch = 0;
    /// Sender-multiplies: overlap the global exchange of minibatch i with the local SpMM and
    /// local reductions of minibatch i + 1.
    bool pipelined = false;
    /// Sender-multiplies: how exchange steps are handed to MPI.
    comm::ExchangeMethod method = comm::ExchangeMethod::point_to_point;
    /// Sender-multiplies: the local operator's format, tiles and register factor (its backend
    /// is `backend` above). The default keeps CSR; xct's data ranks ask for tiled ELL.
    SpmmOperatorConfig local{Backend::cpu, SparseFormat::csr, {256, 4096}, 0};
};

/// One distributed SpMM, set up once (A placed, plans built, communicators split) and run many
/// times. Every call of multiply() is collective over the communicator of construction.
template <typename ValueType, typename IndexType>
class DistSpmm {
public:
    virtual ~DistSpmm() = default;
    virtual DistAlgorithm algorithm() const = 0;

    /// The blocks of A this rank holds, and of B (on entry) and C (on exit) of multiply().
    const std::vector<BlockRange>& a_ranges() const { return a_ranges_; }
    const std::vector<BlockRange>& b_ranges() const { return b_ranges_; }
    const std::vector<BlockRange>& c_ranges() const { return c_ranges_; }

    /// C := A·B on the distributed blocks. `b` must have exactly b_ranges(); `c` is (re)allocated
    /// to c_ranges(). Throws DimensionMismatch, MpiError.
    virtual void multiply(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) = 0;

    /// Bytes per level counted at the MPI calls since construction or reset_stats().
    const comm::CommCounters& counters() const { return counters_; }
    /// Seconds per phase ("compute", "comm", and for sender-multiplies "local", "global").
    const PhaseTimes& times() const { return times_; }
    virtual void reset_stats() {
        counters_.reset();
        times_ = {};
    }

protected:
    /// Throws DimensionMismatch unless b matches b_ranges(); sizes c to c_ranges().
    void prepare(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) const;

    std::vector<BlockRange> a_ranges_, b_ranges_, c_ranges_;
    comm::CommCounters counters_;
    PhaseTimes times_;
};

}  // namespace tessel::dist
