// Sender-multiplies SpMM with direct or hierarchical reduction of partial rows and pipelined
// minibatches (Hidayetoglu 2021, sections 3.2-3.4; MemXCT).
#pragma once

#include <mpi.h>

#include <memory>

#include "core/comm/exchange_executor.hpp"
#include "core/dist/dist_spmm.hpp"
#include "core/dist/sender_multiplies_base.hpp"

namespace tessel::dist {

/// Data rank d of a data communicator owns the columns [col_offsets[d], col_offsets[d+1]) of A
/// (with the matching rows of B) and the rows [row_offsets[d], row_offsets[d+1]) of C; the
/// batch this data group serves is the columns [k_begin, k_end) of B and C (batch parallelism:
/// several data groups side by side, each with its own k range). multiply(), per minibatch of
/// columns [k0, k0 + w):
///   P := A(:, cols_d)·B(cols_d, k0 : k0+w)    only the rows where A(:, cols_d) has nonzeros
///                                             (the footprint, in_rows of the plan);
///   steps 0 .. L-2 of the plan (socket, node, ... reductions), each blocking;
///   the last (global) step into C(rows_d, k0 : k0+w), non-blocking: with `pipelined` it is
///   finished only after the local SpMM and local steps of the next minibatch.
/// Between row chunks of the local SpMM, in-flight steps are tested so that MPI progresses.
template <typename ValueType, typename IndexType>
class SenderMultipliesSpmm
    : public SenderMultipliesBase<ValueType, IndexType, comm::ExchangeExecutor<ValueType>> {
public:
    /// `local_a` is A(:, cols_d) with local columns, its rows compressed to the footprint
    /// (plan.in_rows() rows, ascending global row); `plan` reduces footprint rows into the owned
    /// rows (plan.out_rows() == row_offsets[d+1] - row_offsets[d]). `topology` describes the
    /// ranks of `data_comm`. Collective over data_comm. Throws DimensionMismatch, InvalidInput
    /// (plan), MpiError.
    SenderMultipliesSpmm(MPI_Comm data_comm, const comm::Topology& topology,
                         std::vector<size_type> row_offsets, std::vector<size_type> col_offsets,
                         size_type k_begin, size_type k_end, Csr<ValueType, IndexType> local_a,
                         comm::ExchangePlan plan, const DistOptions& options = {});

    void multiply(const DenseBlocks<ValueType>& b, DenseBlocks<ValueType>& c) override;

private:
    void local_spmm(DenseView<const ValueType> b, DenseView<ValueType> partial,
                    typename comm::ExchangeExecutor<ValueType>::Pending* in_flight);

    std::vector<SpmmOperator<ValueType, IndexType>> chunks_;  // row chunks of local A, for progress polls
    std::vector<size_type> chunk_rows_;              // first row of each chunk (+ end)
    std::vector<std::vector<ValueType, AlignedAllocator<ValueType>>> level_buffers_;
};

/// The sender-multiplies SpMM for options.backend: DeviceSenderMultipliesSpmm for cuda in
/// builds with the CUDA backend, SenderMultipliesSpmm for the other backends. Arguments as the
/// constructors. Throws as they do, and NotCompiled for cuda in a build without it.
template <typename ValueType, typename IndexType>
std::unique_ptr<DistSpmm<ValueType, IndexType>> make_sender_multiplies_spmm(
    MPI_Comm data_comm, const comm::Topology& topology, std::vector<size_type> row_offsets,
    std::vector<size_type> col_offsets, size_type k_begin, size_type k_end,
    Csr<ValueType, IndexType> local_a, comm::ExchangePlan plan, const DistOptions& options = {});

}  // namespace tessel::dist
