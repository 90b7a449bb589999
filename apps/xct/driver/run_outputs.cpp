// Step 6 of a reconstruction, on rank 0: residuals and PSNR, the saved sinograms, the volume,
// TIFF stack and previews, the metrics document and the summary.
#include <omp.h>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "apps/xct/driver/log_text.hpp"
#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"
#include "apps/xct/geometry/phantom.hpp"
#include "apps/xct/io/exchange_writer.hpp"
#include "apps/xct/io/output.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/device_traffic.hpp"
#include "core/metrics.hpp"
#include "core/statistics.hpp"
#include "core/version.hpp"
#include "io/memxct_raw.hpp"
#include "io/tiff_writer.hpp"

namespace tessel::xct {

namespace {

// Totals over the ranks of what the metrics report.
struct Totals {
    double flops = 0, bytes = 0, spmm_seconds = 0, matrix_bytes = 0;
};

// --save-sinogram and --save-exchange. Returns the phantom's line-integral scale when the
// Data Exchange file was written, 0 when nothing was (a resumed run saw only some sinograms).
template <typename V>
double save_sinograms(RunContext<V>& c) {
    const ReconstructOptions& o = c.o;
    const Geometry& g = c.g();
    const size_type slices = c.info.slices;
    auto scope = c.times.scope("write");
    if (c.saved_sinogram.size() != static_cast<std::size_t>(slices * g.num_rays())) {
        if (c.talk) c.log << "tessel-xct: --save-sinogram / --save-exchange skipped: the run was resumed\n";
        return 0.0;
    }
    if (!o.save_sinogram.empty()) {
        io::write_sinogram(o.save_sinogram + ".sino", c.saved_sinogram, slices, g.num_theta(), g.num_rho);
        std::vector<float> theta(g.theta.begin(), g.theta.end());
        io::write_theta(o.save_sinogram + ".theta", theta);
    }
    double scale = 1.0;
    if (!o.save_exchange.empty()) {
        // The phantom has no physical unit: its line integrals are scaled so that the counts stay
        // well inside uint16; measured ones are kept.
        scale = c.info.phantom ? phantom_line_integral_scale(c.saved_sinogram) : 1.0;
        ExchangeProvenance provenance{c.info.description, c.info.first_slice, o.command_line, version};
        const size_type clamped = save_exchange(o.save_exchange, std::move(c.saved_sinogram), slices, g, scale, provenance);
        if (clamped > 0)
            std::fprintf(stderr,
                         "tessel-xct: warning: %lld counts of %s were outside uint16 and were clamped to [0, 65535]\n",
                         static_cast<long long>(clamped), o.save_exchange.c_str());
    }
    return scale;
}

// The centres every slice was reconstructed with, when each had its own (empty otherwise, or
// when a resumed run did not read them all).
template <typename V>
std::vector<double> slice_centers(const RunContext<V>& c) {
    std::vector<double> centers;
    if (!c.source) return centers;
    const auto& found = c.source->slice_centers();
    for (size_type s = 0; s < c.info.slices; ++s) {
        const auto at = found.find(c.info.first_slice + s);
        if (at == found.end()) return {};
        centers.push_back(at->second);
    }
    return centers;
}

// The volume file's attributes; its slices were written round by round.
template <typename V>
void finish_volume(RunContext<V>& c, const ReconstructResult& result) {
    const ReconstructOptions& o = c.o;
    const InputInfo& info = c.info;
    const Geometry& g = c.g();
    VolumeAttributes attributes;
    attributes.algorithm = method_name(o);
    attributes.iterations = result.iterations;
    attributes.residuals = result.residuals;
    attributes.center = info.center;
    attributes.centers = slice_centers(c);
    attributes.command_line = o.command_line;
    attributes.version = version;
    attributes.first_slice = info.first_slice;
    attributes.extra = {{"input", info.description},
                        {"geometry", g.describe()},
                        {"precision", precision_name(o)},
                        {"order", std::string(to_string(o.order))},
                        {"transpose", c.plan.scatter_transpose ? "scatter" : "stored"},
                        {"tol", o.solver.tol},
                        {"nonneg", o.solver.nonneg},
                        {"filter", std::string(to_string(o.fbp_options.filter))},
                        {"filter_cutoff", o.fbp_options.cutoff},
                        {"remove_stripes", !o.remove_stripes ? "no" : o.stripe_sorting ? "sorting" : "offsets"},
                        {"center_auto", o.center_auto},
                        {"ranks", c.world_size},
                        {"data_ranks", c.plan.p_data},
                        {"batch_ranks", c.plan.p_batch}};
    auto scope = c.times.scope("write");
    c.sink->finish(attributes, c.histories);
}

// result.metrics, and the metrics file.
template <typename V>
void fill_metrics(RunContext<V>& c, ReconstructResult& result, const Totals& totals) {
    const ReconstructOptions& o = c.o;
    const Geometry& g = c.g();
    const double per_iteration = c.iterations_run > 0 ? c.iterate_seconds / double(c.iterations_run) : 0.0;
    const double spmm_s = totals.spmm_seconds;
    nlohmann::json& m = result.metrics;
    m["input"] = c.info.description;
    m["geometry"] = {{"n", g.n}, {"num_theta", g.num_theta()}, {"num_rho", g.num_rho}};
    m["slices"] = c.info.slices;
    m["first_slice"] = c.info.first_slice;
    m["solver"] = {{"algorithm", method_name(o)},
                   {"iterations", result.iterations},
                   {"tol", o.solver.tol},
                   {"nonneg", o.solver.nonneg},
                   {"precision", precision_name(o)}};
    m["residuals"] = result.residuals;
    m["ranks"] = {{"total", c.world_size}, {"data", c.plan.p_data}, {"batch", c.plan.p_batch}, {"topology", o.topology}};
    m["batch_slices"] = c.k();
    m["rounds"] = c.rounds();
    m["order"] = {{"kind", std::string(to_string(o.order))}, {"tile", o.tile}};
    m["operator"] = c.op->describe();  // at the end: with the build's overlapped uploads
    m["memory"] = {{"estimate_total", c.plan.estimate.total()},
                   {"estimate_matrices", c.plan.estimate.matrices},
                   {"estimate_build_peak", c.plan.estimate.build_peak},
                   {"limit", std::isfinite(c.limit) ? c.limit : -1.0},
                   {"matrix_bytes", totals.matrix_bytes}};
    m["spmm"] = {{"calls", c.stats.forward_calls + c.stats.backward_calls},
                 {"seconds", spmm_s},
                 {"flops", totals.flops},
                 {"bytes", totals.bytes},
                 {"gflops", spmm_s > 0 ? totals.flops / spmm_s / 1e9 : 0.0},
                 {"gbytes_per_s", spmm_s > 0 ? totals.bytes / spmm_s / 1e9 : 0.0}};
    m["iteration_seconds"] = per_iteration;
    // The steady rate: the median iteration, without each round's start (b up, the first
    // products) and end (the images down), which iteration_seconds spreads over the iterations.
    m["iteration_seconds_median"] = c.step_seconds.empty() ? 0.0 : median(c.step_seconds);
    m["iterate_parts"] = {{"start", c.start_seconds},
                          {"steps", std::accumulate(c.step_seconds.begin(), c.step_seconds.end(), 0.0)},
                          {"finish", c.finish_seconds}};
    // cuda: the context's creation, on a thread beside the host's work from the start (not a phase).
    m["device_context_seconds"] = c.warmup.seconds();
    m["iterations_run"] = c.iterations_run;
    m["seconds_per_slice_iteration"] =
        per_iteration > 0 ? per_iteration / double(std::min(c.info.slices, c.width())) : 0.0;
    if (!result.psnr.empty()) m["psnr_db"] = result.psnr;
    m["threads"] = omp_get_max_threads();
    // This rank's copies, waits and launches by phase (steady: the iterations).
    m["device_traffic"] = device_traffic::to_json();
    m["command_line"] = o.command_line;
    c.times.add("total", c.total_timer.seconds());
    m["phases"] = nlohmann::json::object();
    for (const auto& [phase, seconds] : c.times.all()) m["phases"][phase] = seconds;
    if (!o.metrics_path.empty()) {
        Metrics doc("tessel-xct");
        doc.json().update(m);
        doc.set_phases(c.times);
        doc.write(o.metrics_path);
    }
}

// The last lines of the log.
template <typename V>
void print_summary(RunContext<V>& c, const ReconstructResult& result, double saved_scale) {
    const ReconstructOptions& o = c.o;
    std::ostream& log = c.log;
    log << "done: " << c.info.slices << " slice(s), " << result.iterations << " iterations, residual "
        << (result.residuals.empty() ? std::string("-") : sci(result.residuals.back())) << ", "
        << fixed(result.metrics["iteration_seconds"].get<double>(), 3) << " s/iteration";
    if (result.iterations > 0)
        log << " (median iteration " << fixed(result.metrics["iteration_seconds_median"].get<double>(), 4) << " s)";
    if (!result.psnr.empty()) {
        const double worst = *std::min_element(result.psnr.begin(), result.psnr.end());
        log << ", PSNR vs phantom " << fixed(worst, 2) << " dB" << (result.psnr.size() > 1 ? " (worst slice)" : "");
    }
    log << "\n";
    log << "phases (s):";
    for (const auto& [phase, seconds] : c.times.all()) log << " " << phase << " " << fixed(seconds, 3);
    log << "\n";
    const auto centers = slice_centers(c);
    if (!centers.empty())
        log << "rotation centres per slice: " << fixed(*std::min_element(centers.begin(), centers.end()), 2) << " .. "
            << fixed(*std::max_element(centers.begin(), centers.end()), 2) << " (attribute centers)\n";
    if (!o.output.empty()) log << "volume: " << o.output << "\n";
    if (!o.png_dir.empty()) log << "previews: " << o.png_dir << "\n";
    if (!o.tiff_dir.empty()) log << "TIFF stack: " << o.tiff_dir << "/recon_*.tiff\n";
    if (!o.metrics_path.empty()) log << "metrics: " << o.metrics_path << "\n";
    if (saved_scale > 0 && !o.save_sinogram.empty())
        log << "sinograms: " << o.save_sinogram << ".sino, " << o.save_sinogram << ".theta\n";
    if (saved_scale > 0 && !o.save_exchange.empty())
        log << "sinograms: " << o.save_exchange << " (Data Exchange, line integrals x " << saved_scale << ")\n";
}

}  // namespace

template <typename V>
void finish_run(RunContext<V>& c, ReconstructResult& result) {
    c.times.add("iterate", c.iterate_seconds);
    Totals totals;
    double sums[2] = {c.stats.flops, c.stats.bytes}, slowest[2] = {c.stats.seconds(), c.stats.communicate_seconds};
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, c.world));
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, slowest, 2, MPI_DOUBLE, MPI_MAX, c.world));
    c.times.add("communicate", slowest[1]);
    totals.flops = sums[0];
    totals.bytes = sums[1];
    totals.spmm_seconds = slowest[0];
    totals.matrix_bytes = c.op->matrix_bytes();
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &totals.matrix_bytes, 1, MPI_DOUBLE, MPI_MAX, c.world));
    on_root(c.world, [&] {
        result.histories = c.histories;
        result.residuals = combined_residuals(c.histories, c.bnorms);
        result.iterations = result.residuals.empty() ? 0 : static_cast<int>(result.residuals.size()) - 1;
        result.psnr = c.sink->psnr();
        const double saved_scale = c.saving() ? save_sinograms(c) : 0.0;
        finish_volume(c, result);
        fill_metrics(c, result, totals);
        if (c.talk) print_summary(c, result, saved_scale);
        result.volume = c.sink->take_volume();
    });
}

template <typename V>
void open_outputs(RunContext<V>& c, size_type first_round) {
    const ReconstructOptions& o = c.o;
    on_root(c.world, [&] {
        VolumeSinkSetup s;
        s.output = o.output;
        s.tiff_dir = o.tiff_dir;
        s.png_dir = o.png_dir;
        s.png_slices = o.png_slices;
        s.colormap = o.colormap;
        s.slices = c.info.slices;
        s.n = c.g().n;
        s.first_slice = c.info.first_slice;
        s.keep_volume = o.keep_volume;
        if (o.checkpoint_every > 0 || o.resume) {
            // With --output the partial volume file keeps the finished slices; else a store.
            s.output_in_store = !o.output.empty();
            // The partial file's path is recorded absolute: a resume from another folder finds it.
            s.store.path = s.output_in_store
                               ? std::filesystem::absolute(FinishedSlices::partial_path_for(o.output)).string()
                               : FinishedSlices::path_for(c.checkpoint_path);
            s.store.dataset = s.output_in_store ? volume_dataset : FinishedSlices::own_dataset;
        }
        if (c.info.phantom) s.phantom = [&info = c.info](size_type slice) { return phantom_images(info, slice, 1); };
        c.sink = std::make_unique<VolumeSink>(std::move(s));
        SliceStore recorded;
        if (o.resume) {
            recorded = c.resumed->slices;
            if (recorded.path.empty()) recorded.path = FinishedSlices::path_for(c.checkpoint_path);
        }
        c.sink->start(first_round * c.width(), o.resume ? &recorded : nullptr);
    });
}

template void open_outputs<float>(RunContext<float>&, size_type);
template void open_outputs<double>(RunContext<double>&, size_type);
template void finish_run<float>(RunContext<float>&, ReconstructResult&);
template void finish_run<double>(RunContext<double>&, ReconstructResult&);

}  // namespace tessel::xct
