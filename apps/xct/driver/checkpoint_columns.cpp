// Checkpoints of a round: the state gathered and written by rank 0; on resume, the per-column
// solver scalars from rank 0 to every rank.
#include "apps/xct/driver/checkpoint_columns.hpp"

#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"

#include "core/comm/mpi_check.hpp"
#include "core/error.hpp"

namespace tessel::xct {

// Per-slot vectors of rank 0 (slot = batch group·K + column) packed as [gamma, bnorm, active,
// history...] with equal lengths, broadcast, and this rank's columns unpacked.
template <typename V>
void broadcast_columns(const ParallelLayout& layout, const Checkpoint<V>* c, size_type k, SolverState<V>& st) {
    long long header[2] = {0, 0};
    std::vector<double> packed;
    if (layout.rank == 0) {
        const std::size_t slots = c->gamma.size();
        const std::size_t length = c->history.empty() ? 0 : c->history[0].size();
        header[0] = static_cast<long long>(slots);
        header[1] = static_cast<long long>(length + 3);
        for (std::size_t s = 0; s < slots; ++s) {
            packed.push_back(c->gamma[s]);
            packed.push_back(c->bnorm[s]);
            packed.push_back(c->active[s]);
            packed.insert(packed.end(), c->history[s].begin(), c->history[s].end());
            packed.resize((s + 1) * (length + 3), c->history[s].empty() ? 0.0 : c->history[s].back());
        }
    }
    TESSEL_MPI_CHECK(MPI_Bcast(header, 2, MPI_LONG_LONG, 0, layout.world));
    packed.resize(static_cast<std::size_t>(header[0] * header[1]));
    TESSEL_MPI_CHECK(MPI_Bcast(packed.data(), comm::mpi_count(packed.size()), MPI_DOUBLE, 0, layout.world));
    if (header[0] != layout.p_batch() * k)
        TESSEL_INVALID_INPUT("resume", 0, "the checkpoint holds " + std::to_string(header[0]) + " columns, expected " +
                                              std::to_string(layout.p_batch() * k));
    st.gamma.assign(k, 0.0);
    st.bnorm.assign(k, 0.0);
    st.active.assign(k, 0);
    st.history.assign(k, {});
    const long long b = layout.batch_index();
    for (size_type j = 0; j < k; ++j) {
        const double* at = packed.data() + (b * k + j) * header[1];
        st.gamma[j] = at[0];
        st.bnorm[j] = at[1];
        st.active[j] = at[2] != 0.0;
        st.history[j].assign(at + 3, at + header[1]);
    }
}

template <typename V>
void write_round_checkpoint(RunContext<V>& c, const SolverState<V>& state, size_type round) {
    auto scope = c.times.scope("checkpoint");
    const size_type k = c.k();
    Checkpoint<V> out;
    out.x = c.gather(state.x, true);
    out.r = c.gather(state.r, false);
    if (c.o.solver.algorithm == Algorithm::cgls) out.p = c.gather(state.p, true);
    // Per column: gamma, ‖b‖, active, then the history.
    std::vector<std::vector<double>> packed(k);
    for (size_type j = 0; j < k; ++j) {
        packed[j] = {state.gamma[j], state.bnorm[j], double(state.active[j])};
        packed[j].insert(packed[j].end(), state.history[j].begin(), state.history[j].end());
    }
    const auto all = gather_histories(*c.layout, packed);
    on_root(c.world, [&] {
        out.fingerprint = c.fingerprint;
        out.round = round;
        out.iteration = state.iteration;
        out.round_width = c.width();
        out.total_iterations = c.total_iterations;
        out.done_histories = c.histories;
        out.done_bnorms = c.bnorms;
        out.slices = c.sink->store();
        for (const auto& column : all) {
            out.gamma.push_back(column[0]);
            out.bnorm.push_back(column[1]);
            out.active.push_back(column[2] != 0.0);
            out.history.emplace_back(column.begin() + 3, column.end());
        }
        write_checkpoint(c.checkpoint_path, out, c.g().num_pixels(), c.g().num_rays());
    });
}

template void write_round_checkpoint<float>(RunContext<float>&, const SolverState<float>&, size_type);
template void write_round_checkpoint<double>(RunContext<double>&, const SolverState<double>&, size_type);

template void broadcast_columns<float>(const ParallelLayout&, const Checkpoint<float>*, size_type, SolverState<float>&);
template void broadcast_columns<double>(const ParallelLayout&, const Checkpoint<double>*, size_type,
                                        SolverState<double>&);

}  // namespace tessel::xct
