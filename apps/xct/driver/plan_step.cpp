// The plan step: the memory limit, the plan (run_plan.hpp) recorded in the result and printed.
#include <ostream>

#include "apps/xct/driver/log_text.hpp"
#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"
#include "apps/xct/operator/system_matrix.hpp"
#include "core/version.hpp"

namespace tessel::xct {

template <typename V>
void plan_run(RunContext<V>& c, ReconstructResult& result) {
    const ReconstructOptions& o = c.o;
    const InputInfo& info = c.info;
    const Geometry& g = c.g();
    c.nnz_bound = o.fbp ? 0 : estimate_nnz(g);  // --solver fbp builds no operator to bound
    c.limit = memory_limit(o, c.world);
    c.plan = choose_plan(o, info, c.nnz_bound, c.world_size, c.limit, static_cast<size_type>(c.resume_header[2]));
    result.estimate = c.plan.estimate;
    result.memory_limit = c.limit;
    result.p_data = c.plan.p_data;
    result.p_batch = c.plan.p_batch;
    result.batch_slices = c.plan.k;
    if (!c.talk) return;
    std::ostream& log = c.log;
    log << "tessel-xct " << version << ": " << info.description << "\n";
    log << "  " << g.describe() << ", slices " << info.first_slice << ":" << info.first_slice + info.slices
        << ", centre " << info.center << "\n";
    log << "  " << c.world_size << " rank(s): " << c.plan.p_data << " data x " << c.plan.p_batch << " batch, "
        << c.plan.k << " slice(s) per batch, " << c.rounds() << " round(s); " << method_name(o);
    if (!o.fbp) log << ", " << o.solver.iterations << " iterations";
    log << ", " << precision_name(o) << " precision, " << to_string(o.order) << " order";
    if (c.plan.scatter_transpose && !o.auto_transpose) log << ", A^T by the scatter kernel on A";
    log << "\n";
    if (!c.plan.turn_why.empty()) log << "  --turn-symmetry auto: " << c.plan.turn_why << "\n";
    if (!c.plan.transpose_why.empty()) log << "  --transpose auto: " << c.plan.transpose_why << "\n";
    log << "memory estimate (nnz(A) <= " << c.plan.memory.nnz << (c.plan.turned ? ", the first half of the angles" : "")
        << "):\n" << estimate_text(c.plan.estimate, c.limit);
    if (!c.plan.does_not_fit.empty()) log << "does not fit: " << c.plan.does_not_fit << "\n";
    if (o.dry_run) log << data_ranks_needed(c.plan.memory, c.limit) << "\n";
}

template void plan_run<float>(RunContext<float>&, ReconstructResult&);
template void plan_run<double>(RunContext<double>&, ReconstructResult&);

}  // namespace tessel::xct
