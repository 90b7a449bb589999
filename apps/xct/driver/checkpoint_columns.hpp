// The solver scalars of a resumed round (gamma, ‖b‖, active flag, history per column) moved from
// rank 0's checkpoint to the ranks that hold the columns.
#pragma once

#include "apps/xct/io/checkpoint.hpp"
#include "apps/xct/parallel/parallel.hpp"
#include "apps/xct/solvers/solver.hpp"

namespace tessel::xct {

/// Per-slot vectors of rank 0's checkpoint `c` (slot = batch group·K + column; ignored on other
/// ranks) packed as [gamma, bnorm, active, history...] with equal lengths, broadcast, and this
/// rank's K columns unpacked into `st`. Collective. Throws InvalidInput "resume: ..." when the
/// checkpoint holds another number of columns, MpiError.
template <typename V>
void broadcast_columns(const ParallelLayout& layout, const Checkpoint<V>* c, size_type k, SolverState<V>& st);

}  // namespace tessel::xct
