// Step 1 of a reconstruction: outputs checked, the input opened on rank 0 (its warnings, the
// rotation centre found for --center auto), its description shared; the centre-search mode;
// the fingerprint and the checkpoint to resume from.
#include <cstdio>

#include "apps/xct/driver/log_text.hpp"
#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"
#include "apps/xct/fbp/center_search.hpp"
#include "apps/xct/io/output_check.hpp"
#include "core/comm/mpi_check.hpp"

namespace tessel::xct {

namespace {

// Every output path, before any work (rank 0).
void check_outputs(const ReconstructOptions& o) {
    if (o.dry_run) return;
    check_output_file("output", o.output);
    check_output_file("metrics", o.metrics_path);
    check_output_file("save-exchange", o.save_exchange);
    check_output_file("checkpoint", o.checkpoint_path);
    if (!o.save_sinogram.empty()) check_output_file("save-sinogram", o.save_sinogram + ".sino");
    check_output_folder("png", o.png_dir);
    check_output_folder("tiff", o.tiff_dir);
}

}  // namespace

template <typename V>
void open_input(RunContext<V>& c) {
    const ReconstructOptions& o = c.o;
    std::string info_text;
    on_root(c.world, [&] {
        check_outputs(o);
        auto scope = c.times.scope("read");
        c.source = std::make_unique<SinogramSource>(o.input);
        for (const auto& warning : c.source->warnings())
            std::fprintf(stderr, "tessel-xct: warning: %s\n", warning.c_str());
        if (o.center_auto && !o.dry_run && !o.center_search) {
            auto center_scope = c.times.scope("center");
            const InputInfo& in = c.source->info();
            const size_type slice = o.center_slice.value_or(in.first_slice + in.slices / 2);
            const double center = c.source->find_center(slice);
            // Without --center-slice every slice gets its own centre, searched near this one.
            if (!o.center_slice) c.source->find_centers_per_slice();
            if (c.talk)
                c.log << "rotation centre " << fixed(center, 2) << " (found on slice " << slice << ", Vo et al. 2014"
                      << (o.center_slice ? ")" : "; each slice refined around it)") << "\n";
        }
        info_text = c.source->info().json().dump();
    });
    broadcast(c.world, info_text);
    c.info = InputInfo::from_json(nlohmann::json::parse(info_text));
}

template <typename V>
void center_search_only(RunContext<V>& c) {
    const ReconstructOptions& o = c.o;
    if (c.world_size > 1) TESSEL_INVALID_INPUT("center-search", 0, "runs on one rank (mpiexec -n 1)");
    const size_type slice = o.center_slice.value_or(c.info.first_slice + c.info.slices / 2);
    require_backend(o.projector.backend);
    run_center_search(*c.source, slice, *o.center_search, o.fbp_options,
                      o.png_dir.empty() ? std::string("center-search") : o.png_dir, o.colormap, c.log,
                      o.projector.backend);
}

template <typename V>
void open_checkpoint(RunContext<V>& c) {
    const ReconstructOptions& o = c.o;
    const InputInfo& info = c.info;
    c.fingerprint = {{"input", info.description},
                     {"geometry", c.g().describe()},
                     {"first_slice", info.first_slice},
                     {"slices", info.slices},
                     {"center", info.center},
                     {"solver", method_name(o)},
                     {"iterations", o.solver.iterations},
                     {"nonneg", o.solver.nonneg},
                     {"precision", precision_name(o)},
                     {"turn_symmetry", std::string(to_string(o.turn_symmetry))},
                     {"noise", o.input.noise},
                     {"seed", o.input.seed}};
    double theta_sum = 0;
    for (double t : c.g().theta) theta_sum += t;
    c.fingerprint["theta_sum"] = fixed(theta_sum, 9);

    c.checkpoint_path = !o.checkpoint_path.empty()
                            ? o.checkpoint_path
                            : (!o.output.empty() ? o.output + ".ckpt.h5" : std::string("tessel-xct.ckpt.h5"));
    if (!o.resume) return;
    on_root(c.world, [&] {
        c.resumed = std::make_unique<Checkpoint<V>>(read_checkpoint<V>(c.checkpoint_path));
        check_fingerprint(c.checkpoint_path, c.resumed->fingerprint, c.fingerprint);
        validate_checkpoint(c.checkpoint_path, *c.resumed, c.g().num_pixels(), c.g().num_rays(), info.slices,
                            o.solver.iterations);
        c.resume_header[0] = c.resumed->round;
        c.resume_header[1] = c.resumed->iteration;
        c.resume_header[2] = c.resumed->round_width;
        c.resume_header[3] = c.resumed->total_iterations;
    });
    TESSEL_MPI_CHECK(MPI_Bcast(c.resume_header, 4, MPI_LONG_LONG, 0, c.world));
}

#define TESSEL_INSTANTIATE(V)                          \
    template void open_input<V>(RunContext<V>&);        \
    template void center_search_only<V>(RunContext<V>&); \
    template void open_checkpoint<V>(RunContext<V>&);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::xct
