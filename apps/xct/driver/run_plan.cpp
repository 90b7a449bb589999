// The run's plan: the memory limit per rank, data x batch ranks and slices per batch.
#include "apps/xct/driver/run_plan.hpp"

#include <omp.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "apps/xct/cache/operator_cache.hpp"
#include "apps/xct/operator/transpose_choice.hpp"
#include "apps/xct/operator/turn_symmetry.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/error.hpp"

namespace tessel::xct {

// The memory one rank may use: the option, or MemAvailable shared by the ranks of the node.
double memory_limit(const ReconstructOptions& o, MPI_Comm world) {
    double limit = o.memory_limit;
    if (!(limit > 0)) {
        const int local = comm::ranks_on_node(world);  // collective: every rank calls it
        const double available = available_memory();
        limit = available > 0 ? available / local : std::numeric_limits<double>::infinity();
    }
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &limit, 1, MPI_DOUBLE, MPI_MIN, world));
    return limit;
}

std::string estimate_text(const MemoryEstimate& e, double limit) {
    std::ostringstream out;
    for (const auto& [name, bytes] : e.items) out << "  " << name << ": " << format_bytes(bytes) << "\n";
    out << "  total (busiest rank): " << format_bytes(e.total()) << ", limit "
        << (std::isfinite(limit) ? format_bytes(limit) : std::string("none")) << "\n";
    return out.str();
}

namespace {

// What fits instead, for the refusal: fewer slices per batch, data ranks, or A alone.
std::string what_fits(const MemoryPlan& m, int p_data, size_type fit, double limit) {
    if (fit > 0) return "at most " + std::to_string(fit) + " slices per batch fit (--batch-slices " + std::to_string(fit) + ")";
    MemoryPlan stored = m;
    stored.scatter_transpose = false;
    const int need = min_data_ranks(stored, limit);
    std::string fits = "not even one slice per batch fits with " + std::to_string(p_data) + " data rank(s); " +
                       (m.scatter_transpose ? "without --transpose scatter, " : "") +
                       (need > 0 ? "use at least " + std::to_string(need) + " data ranks (mpiexec -n " +
                                       std::to_string(need) + " ... --data-ranks " + std::to_string(need) + ")"
                                 : std::string("no number of data ranks fits"));
    MemoryPlan scatter = m;
    scatter.scatter_transpose = true;
    scatter.p_data = 1;
    if (!m.scatter_transpose && m.kernel == Kernel::tiled_ell && estimate_memory(scatter).total() <= limit)
        fits += "; or one rank with --transpose scatter (A alone)";
    return fits;
}

std::string explain_does_not_fit(const MemoryPlan& m, const RunPlan& plan, size_type fit, double limit) {
    const MemoryEstimate& e = plan.estimate;
    return "estimated " + format_bytes(e.total()) + " per rank (A and A^T " + format_bytes(e.matrices) + ", build peak " +
           format_bytes(e.build_peak) + ", vectors for " + std::to_string(plan.k) + " slices " +
           format_bytes(e.vectors) + ", rank 0 " + format_bytes(e.rank0) + ") exceeds the memory limit " +
           format_bytes(limit) + ": " + what_fits(m, plan.p_data, fit, limit) +
           "; more data ranks or smaller tiles (--block-rows) also reduce it";
}

// --turn-symmetry (turn_chosen), where auto also stays off when --data-ranks split the operator.
bool turn_wanted(const ReconstructOptions& o, const Geometry& g, std::string& why) {
    if (o.turn_symmetry == TurnSymmetry::automatic && o.data_ranks > 1) {
        why = "off: --data-ranks " + std::to_string(o.data_ranks) + " split the whole operator";
        return false;
    }
    return turn_chosen(o.turn_symmetry, g, "--turn-symmetry", why);
}

// Whether the half operator fits one rank, in its smaller form when --transpose may choose it.
template <typename Fits>
bool half_fits_one_rank(const ReconstructOptions& o, MemoryPlan& m, Fits fits_with) {
    const bool asked = m.scatter_transpose;
    if (o.auto_transpose && o.projector.kernel == Kernel::tiled_ell && o.projector.row_groups == 1)
        m.scatter_transpose = true;
    const bool fits = fits_with(1, 1);
    m.scatter_transpose = asked;
    return fits;
}

// Which transpose forms --operator-cache already holds for this run.
CachedForms cached_forms(const ReconstructOptions& o, const Geometry& g) {
    CachedForms cached;
    if (o.operator_cache.empty()) return cached;
    cached.folder = true;
    ProjectorOptions p = o.projector;
    const int value_bytes = o.double_precision ? 8 : 4;
    p.scatter_transpose = false;
    cached.stored = operator_cache_has(o.operator_cache, operator_cache_key(g, o.order, o.tile, p, value_bytes));
    p.scatter_transpose = true;
    cached.scatter = operator_cache_has(o.operator_cache, operator_cache_key(g, o.order, o.tile, p, value_bytes));
    return cached;
}

// The memory plan's inputs that the options and the input fix (nnz: the whole operator's bound).
MemoryPlan base_memory_plan(const ReconstructOptions& o, const InputInfo& info, size_type nnz, bool turned) {
    MemoryPlan m;
    // --solver fbp builds no operator (direct backprojection); --turn-symmetry half of it.
    m.nnz = o.fbp ? 0 : (turned ? (nnz + 1) / 2 : nnz);
    m.turned = turned;
    m.pixels = info.geometry.num_pixels();
    m.rays = info.geometry.num_rays();
    m.value_bytes = o.double_precision ? 8 : 4;
    m.stored_value_bytes = o.projector.half_values ? 2 : m.value_bytes;
    m.hilbert = o.order == DomainOrder::hilbert;
    m.kernel = o.projector.kernel;
    m.scatter_transpose = o.projector.scatter_transpose;
    m.threads = omp_get_max_threads();
    m.slices = info.slices;
    m.keep_volume = o.keep_volume;
    m.input_bytes_per_slice = info.input_bytes_per_slice;
    m.checkpoint = o.checkpoint_every > 0;
    m.row_groups = o.projector.row_groups;
    return m;
}

// --transpose auto: the faster total of the forms that fit one rank (transpose_choice.hpp); A
// alone on every rank needs no communication, so it comes before data ranks when A + Aᵀ do not.
template <typename Fits>
void choose_transpose_form(const ReconstructOptions& o, const InputInfo& info, int ranks, RunPlan& plan,
                           Fits fits_with) {
    MemoryPlan& m = plan.memory;
    const bool stored_fits = fits_with(1, 1);
    m.scatter_transpose = true;
    const bool scatter_fits = fits_with(1, 1);
    // Turned pairs: half the nonzeros, each product twice the slices.
    TransposeWork work;
    work.nnz = m.nnz;
    work.pixels = info.geometry.num_pixels();
    work.iterations = o.solver.iterations;
    work.columns = (plan.turned ? 2 : 1) * ((info.slices + ranks - 1) / ranks);
    const int threads = omp_get_max_threads();
    const TransposeChoice choice =
        choose_transpose(work, stored_fits, scatter_fits,
                         cached_forms(o, plan.turned ? first_half(info.geometry) : info.geometry),
                         o.projector.backend == Backend::cuda ? device_transpose_rates(threads)
                                                              : cpu_transpose_rates(threads));
    plan.scatter_transpose = choice.scatter;
    plan.transpose_why = choice.why;
    m.scatter_transpose = plan.scatter_transpose;
}

// The forms that keep the operator whole on every rank refuse --data-ranks above 1.
void refuse_data_ranks(const ReconstructOptions& o, const char* option, const std::string& why) {
    if (o.data_ranks > 1)
        TESSEL_INVALID_INPUT(option, 0, why + "; drop --data-ranks " + std::to_string(o.data_ranks));
}

// Data ranks: 1 for the whole-operator forms, the option, else (MemXCT) as few as make A fit
// and batch parallelism for the rest.
template <typename Fits>
int choose_data_ranks(const ReconstructOptions& o, const RunPlan& plan, int ranks, Fits fits_with) {
    if (o.fbp) {
        refuse_data_ranks(o, "data-ranks", "--solver fbp builds no operator to split");
        return 1;
    }
    if (plan.turned) {
        refuse_data_ranks(o, "turn-symmetry", "keeps the half operator whole on every rank (batch parallelism only)");
        return 1;
    }
    if (plan.scatter_transpose) {
        refuse_data_ranks(o, "transpose", "scatter keeps A whole on every rank (batch parallelism only)");
        return 1;
    }
    if (o.projector.row_groups > 1) {
        refuse_data_ranks(o, "row-groups", "row groups keep A and A^T whole on every rank (batch parallelism only)");
        return 1;
    }
    if (o.data_ranks > 0) {
        if (ranks % o.data_ranks != 0)
            TESSEL_INVALID_INPUT("data-ranks", 0, std::to_string(o.data_ranks) + " data ranks do not divide " +
                                                      std::to_string(ranks) + " ranks");
        return o.data_ranks;
    }
    for (int d = 1; d <= ranks; ++d)
        if (ranks % d == 0 && fits_with(d, 1)) return d;
    return ranks;
}

// The largest k in [0, per_group] that fits (the round on rank 0 grows with k too).
template <typename Fits>
size_type largest_fitting_k(int p_data, size_type per_group, Fits fits_with) {
    size_type lo = 0, hi = std::max<size_type>(1, per_group);
    while (lo < hi) {
        const size_type mid = (lo + hi + 1) / 2;
        if (fits_with(p_data, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// Slices per batch: the checkpoint's rounds when resuming, the option, else as many as fit.
size_type slices_per_batch(const ReconstructOptions& o, int p_batch, size_type per_group, size_type fit,
                           size_type resume_width) {
    if (resume_width > 0) {
        if (resume_width % p_batch != 0)
            TESSEL_INVALID_INPUT("resume", 0, "the checkpoint has rounds of " + std::to_string(resume_width) +
                                                  " slices, which " + std::to_string(p_batch) +
                                                  " batch groups cannot share; use a rank grid whose batch count "
                                                  "divides " + std::to_string(resume_width));
        return resume_width / p_batch;
    }
    if (o.batch_slices > 0) return o.batch_slices;
    return std::max<size_type>(1, std::min(per_group, fit));
}

}  // namespace

// Picks the data ranks and the slices per batch so that the estimate fits the limit, or throws
// OutOfMemoryBudget saying what would fit.
RunPlan choose_plan(const ReconstructOptions& o, const InputInfo& info, size_type nnz, int ranks, double limit,
                    size_type resume_width) {
    RunPlan plan;
    plan.turned = !o.fbp && turn_wanted(o, info.geometry, plan.turn_why);
    plan.memory = base_memory_plan(o, info, nnz, plan.turned);
    MemoryPlan& m = plan.memory;
    auto fits_with = [&](int p_data, size_type k) {
        MemoryPlan t = m;
        t.p_data = p_data;
        t.k = k;
        t.round_slices = k * (ranks / p_data);
        return estimate_memory(t).total() <= limit;
    };
    if (plan.turned && o.turn_symmetry == TurnSymmetry::automatic && !half_fits_one_rank(o, m, fits_with)) {
        plan.turned = false;
        plan.turn_why = "off: the half operator does not fit one rank; data ranks split the whole one";
        m = base_memory_plan(o, info, nnz, false);
    }
    plan.scatter_transpose = o.projector.scatter_transpose;
    // Row groups multiply a stored Aᵀ: --transpose auto keeps it.
    if (!o.fbp && o.auto_transpose && o.data_ranks == 0 && o.projector.kernel == Kernel::tiled_ell &&
        o.projector.row_groups == 1)
        choose_transpose_form(o, info, ranks, plan, fits_with);
    if (o.fbp) plan.scatter_transpose = false;
    plan.p_data = choose_data_ranks(o, plan, ranks, fits_with);
    plan.p_batch = ranks / plan.p_data;
    const size_type per_group = (info.slices + plan.p_batch - 1) / plan.p_batch;
    m.p_data = plan.p_data;
    const size_type fit = largest_fitting_k(plan.p_data, per_group, fits_with);
    plan.k = slices_per_batch(o, plan.p_batch, per_group, fit, resume_width);
    m.k = plan.k;
    m.round_slices = plan.k * plan.p_batch;
    plan.estimate = estimate_memory(m);
    if (plan.estimate.total() > limit) {
        plan.does_not_fit = explain_does_not_fit(m, plan, fit, limit);
        if (!o.dry_run) TESSEL_THROW(OutOfMemoryBudget, plan.does_not_fit);
    }
    return plan;
}

// The data ranks one slice per batch needs in each precision (values and vectors in bytes).
std::string data_ranks_needed(MemoryPlan m, double limit) {
    std::ostringstream out;
    out << "data ranks needed for one slice per batch under " << format_bytes(limit) << ":";
    const char* names[] = {"single", "mixed (fp16 values)", "double"};
    const size_type value_bytes[] = {4, 2, 8}, vector_bytes[] = {4, 4, 8};
    for (int i = 0; i < 3; ++i) {
        m.stored_value_bytes = value_bytes[i];
        m.value_bytes = vector_bytes[i];
        const int need = min_data_ranks(m, limit);
        out << (i ? ", " : " ") << names[i] << " " << (need > 0 ? std::to_string(need) : std::string("none fits"));
    }
    // --transpose scatter keeps A alone on one data rank.
    m.scatter_transpose = true;
    m.p_data = 1;
    m.k = 1;
    out << "; one rank with --transpose scatter (A only):";
    for (int i = 0; i < 3; ++i) {
        m.stored_value_bytes = value_bytes[i];
        m.value_bytes = vector_bytes[i];
        out << (i ? ", " : " ") << names[i] << (estimate_memory(m).total() <= limit ? " fits" : " does not fit");
    }
    return out.str();
}

}  // namespace tessel::xct
