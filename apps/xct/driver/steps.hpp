// The steps of one reconstruction, in the order reconstruct.cpp runs them, each on the shared
// RunContext (run_context.hpp) and each in its own file.
#pragma once

#include "apps/xct/driver/reconstruct_options.hpp"
#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/solvers/solver.hpp"

namespace tessel::xct {

// Collective unless said otherwise.

/// Checks the outputs, opens the input on rank 0 (finds the centre for --center auto), shares
/// its description. run_input.cpp.
template <typename V>
void open_input(RunContext<V>& c);
/// --center-search: the gallery on one rank, then the run ends. run_input.cpp.
template <typename V>
void center_search_only(RunContext<V>& c);
/// The fingerprint and, with --resume, the checkpoint (rank 0 keeps it; all get its header).
/// run_input.cpp.
template <typename V>
void open_checkpoint(RunContext<V>& c);
/// The plan (throws OutOfMemoryBudget unless a dry run), printed. plan_step.cpp.
template <typename V>
void plan_run(RunContext<V>& c, ReconstructResult& result);
/// Ranks, orderings, A and Aᵀ (on cuda part of the build goes on beside the first round's
/// sinograms: Projector::finish_build). run_operator.cpp.
template <typename V>
void build_operator(RunContext<V>& c);
/// What build_operator built, printed on rank 0 once the build has finished. run_operator.cpp.
template <typename V>
void log_operator(RunContext<V>& c);
/// --solver fbp instead of build_operator: all ranks batch ranks, natural order, a matrix-free
/// A (for the phantom's sinograms) and no Aᵀ: run_round backprojects directly. run_direct_fbp.cpp.
template <typename V>
void prepare_direct_fbp(RunContext<V>& c);
/// b := the phantom's sinograms of slices [first, first + count) (noisy with --noise), kept
/// for the save options. phantom_sinogram.cpp.
template <typename V>
void phantom_sinograms(RunContext<V>& c, size_type first, size_type count, DenseMatrix<V>& b);
/// One round of slices [first, first + count): sinograms, stripes, FBP, the solve, the images
/// and histories to rank 0. Returns false when --stop-after stopped the run. run_round.cpp.
template <typename V>
bool run_round(RunContext<V>& c, Solver<V>& solver, size_type round, ReconstructResult& result);
/// A checkpoint of the round's state (rank 0 writes). checkpoint_columns.cpp.
template <typename V>
void write_round_checkpoint(RunContext<V>& c, const SolverState<V>& state, size_type round);
/// Rank 0's sink of finished slices (volume file, TIFF, previews, store of a checkpointed run),
/// before the first round; on resume the finished slices come back from the store.
/// run_outputs.cpp.
template <typename V>
void open_outputs(RunContext<V>& c, size_type first_round);
/// Everything rank 0 writes and prints at the end. run_outputs.cpp.
template <typename V>
void finish_run(RunContext<V>& c, ReconstructResult& result);

}  // namespace tessel::xct
