// tessel-xct's options for measured data (docs/xct.md, "From the beamline"): the rotation
// centre (a number, auto, a search), flat fields and angle units, stripe removal, FBP and
// --init fbp. Header-only: main.cpp registers them with CLI11 and applies them after parsing.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "apps/xct/driver/reconstruct.hpp"
#include "apps/xct/fbp/center_search.hpp"
#include "apps/xct/fbp/fbp_filter.hpp"
#include "core/app/cli_checks.hpp"
#include "core/error.hpp"
#include "io/data_exchange.hpp"

namespace tessel::xct {

/// The option texts that need parsing after CLI11 has read them.
struct BeamlineOptions {
    std::string center, center_search, filter = "ramp", init = "zero", theta_units = "auto",
                stripe_method = "offsets";

    /// --center, --center-slice, --center-search, --no-flat, --theta-units, --remove-stripes,
    /// --stripe-method, --stripe-threshold, --stripe-size.
    void add_input_options(CLI::App& app, ReconstructOptions& o) {
        app.add_option("--channels", o.input.channels,
                       "Raw sinogram: channels per projection (default: from the file size, checked against the data)")
            ->check(tessel::app::at_least(1));
        app.add_option("--center", center,
                       "Rotation centre in detector columns (edges at 0..columns; default columns/2), or auto: found "
                       "from the data (Vo et al. 2014) for every slice (searched near the middle slice's)");
        app.add_option("--center-slice", o.center_slice,
                       "With --center auto: one centre for the volume, found on this slice (detector row); the slice "
                       "of --center-search (default: the middle selected one)");
        app.add_option("--center-search", center_search,
                       "A:B:STEP: reconstruct --center-slice by FBP at each trial centre, write a PNG gallery and "
                       "center_search.tsv into --png DIR (default center-search/), then stop");
        app.add_flag("--no-flat", o.input.exchange.no_flat,
                     "Data Exchange: the projections are normalised already (no data_white/data_dark; only -log)");
        app.add_option("--theta-units", theta_units,
                       "Units of /exchange/theta: auto (degrees unless they look like radians, with a warning), degrees "
                       "or radians")
            ->check(CLI::IsMember({"auto", "degrees", "radians"}))
            ->capture_default_str();
        app.add_flag("--remove-stripes", o.remove_stripes,
                     "Remove detector stripes (ring artefacts) from the sinograms first (--stripe-method)");
        app.add_option("--stripe-method", stripe_method,
                       "offsets: correct the channels whose offset against their neighbours stands out (stripes "
                       "at most angles; clean channels untouched); sorting: Vo et al. 2018's sorting-based "
                       "smoothing of every channel (also partial stripes)")
            ->check(CLI::IsMember({"offsets", "sorting"}))
            ->capture_default_str();
        app.add_option("--stripe-threshold", o.stripe_threshold,
                       "offsets: how many robust standard deviations a channel's offset must stand out")
            ->check(CLI::PositiveNumber)
            ->capture_default_str();
        app.add_option("--stripe-size", o.stripe_size,
                       "sorting: median window across channels (0: 1% of the channels, at least 5)")
            ->capture_default_str();
    }

    /// --filter, --filter-cutoff, --init.
    void add_fbp_options(CLI::App& app, ReconstructOptions& o) {
        app.add_option("--filter", filter, "FBP filter: ramp, shepp-logan, cosine, hamming or hann")
            ->check(CLI::IsMember({"ramp", "shepp-logan", "cosine", "hamming", "hann"}))
            ->capture_default_str();
        app.add_option("--filter-cutoff", o.fbp_options.cutoff, "FBP filter cut-off, a fraction of Nyquist in (0, 1]")
            ->capture_default_str();
        app.add_option("--init", init, "Start of CGLS/SIRT: zero or fbp (the filtered backprojection)")
            ->check(CLI::IsMember({"zero", "fbp"}))
            ->capture_default_str();
    }

    /// Fills `o` from the texts and --solver. Throws InvalidInput "center: 'nan' is not a number
    /// of detector columns or auto", "center-search: ...", "theta-units: ...", "init: ...",
    /// "filter-cutoff: ...".
    void apply(ReconstructOptions& o, const std::string& solver) const {
        if (center == "auto") {
            o.center_auto = true;
        } else if (!center.empty()) {
            std::size_t used = 0;
            double value = std::numeric_limits<double>::quiet_NaN();
            try {
                value = std::stod(center, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != center.size() || !std::isfinite(value))
                TESSEL_INVALID_INPUT("center", 0, "'" + center + "' is not a number of detector columns or auto");
            o.input.center = value;
        }
        if (!center_search.empty()) o.center_search = parse_center_trials(center_search);
        o.input.exchange.theta_units = io::parse_theta_units(theta_units);
        o.stripe_sorting = stripe_method == "sorting";
        o.fbp = solver == "fbp";
        o.init_fbp = init == "fbp";
        if (o.fbp && o.init_fbp) TESSEL_INVALID_INPUT("init", 0, "--init fbp applies to cgls and sirt, not to --solver fbp");
        o.fbp_options.filter = parse_fbp_filter(filter);
        if (!(o.fbp_options.cutoff > 0.0 && o.fbp_options.cutoff <= 1.0))
            TESSEL_INVALID_INPUT("filter-cutoff", 0, "cut-off " + std::to_string(o.fbp_options.cutoff) +
                                                         " outside (0, 1] (a fraction of the Nyquist frequency)");
    }
};

}  // namespace tessel::xct
