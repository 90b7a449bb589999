// The reconstruction driver: the steps of steps.hpp in order (input, checkpoint, plan,
// operator, rounds of batched solves, outputs).
#include "apps/xct/driver/reconstruct.hpp"

#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"

namespace tessel::xct {

namespace {

template <typename V>
ReconstructResult run(const ReconstructOptions& o, MPI_Comm world, std::ostream& log) {
    ReconstructResult result;
    RunContext<V> c(o, world, log);
    open_input(c);
    result.info = c.info;
    if (o.center_search) {
        center_search_only(c);
        result.dry_run = true;
        return result;
    }
    open_checkpoint(c);
    plan_run(c, result);
    if (o.dry_run) {
        result.dry_run = true;
        return result;
    }
    if (o.fbp)
        prepare_direct_fbp(c);  // one backprojection needs no matrix
    else
        build_operator(c);

    SolverOptions solver_options = o.solver;
    if (o.fbp) solver_options.iterations = 0;  // the filtered backprojection is the answer
    Solver<V> solver(*c.op, solver_options, c.layout->data_sum());
    size_type first_round = 0;
    if (o.resume) {
        first_round = static_cast<size_type>(c.resume_header[0]);
        c.total_iterations = static_cast<int>(c.resume_header[3]);
        if (c.world_rank == 0) {
            c.histories = std::move(c.resumed->done_histories);
            c.bnorms = std::move(c.resumed->done_bnorms);
        }
    }
    open_outputs(c, first_round);
    for (size_type round = first_round; round < c.rounds(); ++round)
        if (!run_round(c, solver, round, result)) return result;  // --stop-after
    finish_run(c, result);
    return result;
}

}  // namespace

ReconstructResult reconstruct(const ReconstructOptions& options, MPI_Comm world, std::ostream& log) {
    if (options.double_precision) return run<double>(options, world, log);
    return run<float>(options, world, log);
}

}  // namespace tessel::xct
