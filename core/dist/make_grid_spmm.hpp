// One constructor call for every grid variant: the algorithm picks the class.
#pragma once

#include <memory>

#include "core/dist/grid_spmm.hpp"

namespace tessel::dist {

/// Spmm15dA, Spmm2dA, Spmm2dC, Spmm2dAAsync or Spmm2dCAsync for `algorithm`. Collective.
/// Throws DimensionMismatch (not a grid algorithm, bad layout or blocks), MpiError.
template <typename ValueType, typename IndexType>
std::unique_ptr<DistSpmm<ValueType, IndexType>> make_grid_spmm(
    DistAlgorithm algorithm, MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
    std::vector<Csr<ValueType, IndexType>> local_a, const DistOptions& options = {});

}  // namespace tessel::dist
