// Step 4 of a reconstruction: the rank grid, the orderings of both domains, A and Aᵀ (local on
// one data rank, distributed over several), and what was built printed (once it is finished).
#include "apps/xct/cache/operator_cache.hpp"
#include "apps/xct/driver/log_text.hpp"
#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"
#include "apps/xct/operator/turn_symmetry.hpp"
#include "apps/xct/operator/turned_projector.hpp"
#include "core/cpu/isa.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::xct {

namespace {

// A of one data rank for `g` in `ordering`: through the cache folder when there is one.
template <typename V>
std::unique_ptr<Projector<V>> local_operator(RunContext<V>& c, const Geometry& g, const Ordering& ordering) {
    const ReconstructOptions& o = c.o;
    ProjectorOptions local = o.projector;
    local.scatter_transpose = c.plan.scatter_transpose;
    if (!o.operator_cache.empty() && local.kernel == Kernel::tiled_ell)
        return cached_local_projector<V>(o.operator_cache, g, ordering, local, &c.times, c.log, c.talk);
    return make_local_projector<V>(g, ordering, local, &c.times);
}

// --turn-symmetry: A of the first half of the angles, the whole scan's order from its order.
template <typename V>
void build_turned_operator(RunContext<V>& c) {
    auto make_order = [&](const Geometry& half) {
        auto scope = c.times.scope("reorder");
        return make_ordering(half, c.o.order, c.o.tile);
    };
    auto make_half = [&](const Geometry& half, const Ordering& half_order) { return local_operator(c, half, half_order); };
    c.op = make_turned_projector<V>(c.g(), c.ordering, make_order, make_half);
}

// A and Aᵀ split over the data ranks (MemXCT); this rank's pixel and ray offsets set.
template <typename V>
std::unique_ptr<Projector<V>> distributed_operator(RunContext<V>& c) {
    const ReconstructOptions& o = c.o;
    const Geometry& g = c.g();
    if (!o.operator_cache.empty() && c.talk) c.log << "operator: --operator-cache serves one data rank; not used\n";
    DistributedOptions d;
    d.hierarchical = o.hierarchical;
    d.minibatch = o.minibatch;
    d.pipelined = o.pipelined;
    d.method = o.exchange;
    d.backend = o.projector.backend;
    d.cuda_aware = o.cuda_aware_mpi;
    d.local = o.projector;
    auto dp = std::make_unique<DistributedProjector<V>>(c.layout->data.get(), c.layout->data_topology, g,
                                                        c.ordering, c.k(), d, &c.times);
    c.pixel_offsets = dp->pixel_offsets();
    c.ray_offsets = dp->ray_offsets();
    return dp;
}

}  // namespace

template <typename V>
void build_operator(RunContext<V>& c) {
    const ReconstructOptions& o = c.o;
    const Geometry& g = c.g();
    // A missing GPU is found before the build.
    require_backend(o.projector.backend);
    c.layout = std::make_unique<ParallelLayout>(make_parallel_layout(c.world, c.plan.p_data, o.topology));
    c.pixel_offsets = {0, g.num_pixels()};
    c.ray_offsets = {0, g.num_rays()};
    if (c.plan.turned) {
        build_turned_operator(c);  // its own order: the first half's rays, then their partners
    } else {
        {
            auto scope = c.times.scope("reorder");
            c.ordering = make_ordering(g, o.order, o.tile);
        }
        c.op = c.plan.p_data == 1 ? local_operator(c, g, c.ordering) : distributed_operator(c);
    }
    c.operator_unlogged = c.talk;
}

namespace {

// ", bank order: shared-memory wavefronts per slot row A 1.78 -> 1.17 (0.05 s), A^T ..." (row
// groups: "per quarter warp of a slot row", their kernel's 16-byte reads).
void log_bank_order(std::ostream& log, const nlohmann::json& info) {
    std::string text;
    bool groups = false;
    for (const char* m : {"A", "At"}) {
        if (info.contains(m) && info[m].is_object() && info[m].contains("row_groups")) groups = true;
        if (!info.contains(m) || !info[m].is_object() || !info[m].contains("bank_order")) continue;
        const auto& b = info[m]["bank_order"];
        text += std::string(text.empty() ? "" : ", ") + (m[1] ? "A^T " : "A ") +
                fixed(b["wavefronts_before"].get<double>(), 2) + " -> " + fixed(b["wavefronts_after"].get<double>(), 2) +
                " (" + fixed(b["seconds"].get<double>(), 2) + " s)";
    }
    if (!text.empty())
        log << ", bank order: shared-memory wavefronts per " << (groups ? "quarter warp of a " : "") << "slot row " << text;
}

// ", row groups of 4: entries per staged read A 3.10, A^T 2.95, padding A 31.0% A^T 28.2% (0.40 s)".
void log_row_groups(std::ostream& log, const nlohmann::json& info) {
    std::string reads, padding;
    double seconds = 0;
    std::int64_t group = 0;
    for (const char* m : {"A", "At"}) {
        if (!info.contains(m) || !info[m].is_object() || !info[m].contains("row_groups")) continue;
        const auto& g = info[m]["row_groups"];
        const std::string name = m[1] ? "A^T " : "A ";
        reads += std::string(reads.empty() ? "" : ", ") + name + fixed(g["entries_per_slot"].get<double>(), 2);
        padding += std::string(padding.empty() ? "" : " ") + name + fixed(100.0 * g["padding"].get<double>(), 1) + "%";
        seconds += g["seconds"].get<double>();
        group = g["group"].get<std::int64_t>();
    }
    if (!reads.empty())
        log << ", row groups of " << group << ": entries per staged read " << reads << ", padding " << padding << " ("
            << fixed(seconds, 2) << " s)";
}

}  // namespace

template <typename V>
void log_operator(RunContext<V>& c) {
    const ReconstructOptions& o = c.o;
    c.operator_unlogged = false;
    const nlohmann::json info = c.op->describe();
    const bool scatter = c.plan.scatter_transpose;
    c.log << "operator: nnz(A) " << c.op->nnz() << " (this rank), " << (scatter ? "A (A^T by the scatter kernel) " : "A and A^T ")
          << format_bytes(c.op->matrix_bytes());
    if (info.contains("kernel_runs")) c.log << ", " << info["kernel_runs"].get<std::string>();
    if (info.contains("A"))
        c.log << ", padding " << fixed(100.0 * info["A"]["padding"].get<double>(), 1) << "%, reuse A "
              << fixed(info["A"]["average_reuse"].get<double>(), 2);
    if (info.contains("At") && info["At"].is_object())
        c.log << " A^T " << fixed(info["At"]["average_reuse"].get<double>(), 2);
    log_bank_order(c.log, info);
    log_row_groups(c.log, info);
    if (c.times.get("load") > 0 && c.times.get("build") == 0)
        c.log << ", loaded in " << fixed(c.times.get("load"), 2) << " s\n";
    else
        c.log << ", built in " << fixed(c.times.get("build"), 2) << " s\n";
    if (o.verbose) c.log << "  " << info.dump() << "\n  " << cpu::isa_description() << "\n";
}

template void build_operator<float>(RunContext<float>&);
template void build_operator<double>(RunContext<double>&);
template void log_operator<float>(RunContext<float>&);
template void log_operator<double>(RunContext<double>&);

}  // namespace tessel::xct
