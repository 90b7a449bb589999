// tessel._xct_reconstruct (CGLS, SIRT, FBP), _xct_project, _xct_normalize and
// _xct_find_center over numpy arrays (xct's in-memory API, apps/xct/driver/api.hpp, and the beamline
// steps tessel-xct runs on Data Exchange input). Results are allocated here and written in
// place; the GIL is released while tessel computes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "apps/xct/driver/api.hpp"
#include "apps/xct/fbp/fbp_filter.hpp"
#include "apps/xct/preprocessing/center_finding.hpp"
#include "core/operator/default_tiles.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "io/data_exchange.hpp"

namespace tessel::python {

namespace {

std::vector<double> angles(py::handle theta_object, size_type expected) {
    auto theta = c_array<double>(theta_object, "theta", 1);
    if (theta.shape(0) != expected)
        bad_argument("theta", std::to_string(theta.shape(0)) + " angles for " + std::to_string(expected) +
                                  " projections (tomo.shape[0])");
    return std::vector<double>(theta.data(), theta.data() + theta.shape(0));
}

py::tuple reconstruct(py::handle tomo_object, py::handle theta_object, std::optional<double> center,
                      const std::string& algorithm, int num_iter, double tol, bool nonneg, size_type size,
                      size_type batch_slices, bool sinogram_order, const std::string& order,
                      const std::string& backend, const std::string& filter_name, double filter_cutoff,
                      const std::string& precision, const std::string& transpose,
                      const std::string& operator_cache, const std::string& turn_symmetry) {
    auto tomo = c_array<float>(tomo_object, "tomo", 3);
    xct::SinogramArray s;
    s.data = tomo.data();
    s.layout = sinogram_order ? xct::SinogramLayout::slice_angle_channel : xct::SinogramLayout::angle_slice_channel;
    s.angles = tomo.shape(sinogram_order ? 1 : 0);
    s.slices = tomo.shape(sinogram_order ? 0 : 1);
    s.channels = tomo.shape(2);
    if (s.angles < 1 || s.slices < 1 || s.channels < 1) bad_argument("tomo", "empty array of shape " + shape_text(tomo));
    s.theta = angles(theta_object, s.angles);
    if (num_iter < 1) bad_argument("num_iter", std::to_string(num_iter) + " is below 1");
    if (size < 0) bad_argument("size", std::to_string(size) + " is negative");
    if (batch_slices < 0) bad_argument("batch_slices", std::to_string(batch_slices) + " is negative");
    if (tol < 0) bad_argument("tol", "negative tolerance");
    const bool fbp = algorithm == "fbp";
    xct::FbpOptions fbp_options;
    if (fbp) {
        fbp_options.filter = xct::parse_fbp_filter(filter_name);
        if (!(filter_cutoff > 0.0 && filter_cutoff <= 1.0))
            bad_argument("filter_cutoff", std::to_string(filter_cutoff) + " is outside (0, 1] (a fraction of Nyquist)");
        fbp_options.cutoff = filter_cutoff;
    }
    xct::ArrayReconstructOptions o;
    if (!fbp) o.solver.algorithm = xct::parse_algorithm(algorithm);
    o.solver.iterations = num_iter;
    o.solver.tol = tol;
    o.solver.nonneg = nonneg;
    o.center = center;
    o.size = size;
    o.batch_slices = batch_slices;
    o.order = xct::parse_domain_order(order);
    o.projector.backend = resolve_backend(parse_backend(backend), "backend");
    o.projector.tiles = default_tiles(o.projector.backend);  // on cuda core's smaller stages, as tessel-xct
    if (precision != "single" && precision != "mixed")
        bad_argument("precision", "'" + precision + "' is not 'single' or 'mixed'");
    o.projector.half_values = precision == "mixed";
    if (transpose != "stored" && transpose != "scatter")
        bad_argument("transpose", "'" + transpose + "' is not 'stored' or 'scatter'");
    o.projector.scatter_transpose = transpose == "scatter";
    o.operator_cache = operator_cache;
    o.turn_symmetry = xct::parse_turn_symmetry(turn_symmetry);
    const size_type n = size > 0 ? size : s.channels;
    py::array_t<float> volume({static_cast<py::ssize_t>(s.slices), static_cast<py::ssize_t>(n),
                               static_cast<py::ssize_t>(n)});
    std::span<float> out(volume.mutable_data(), static_cast<std::size_t>(volume.size()));
    xct::ArrayReconstructInfo info;
    {
        py::gil_scoped_release release;
        info = fbp ? xct::fbp_array(s, o, fbp_options, out) : xct::reconstruct_array(s, o, out);
    }
    py::dict details;
    details["iterations"] = info.iterations;
    details["batch_slices"] = info.batch_slices;
    details["turned"] = info.turned;
    details["residuals"] = info.histories;
    return py::make_tuple(volume, details);
}

py::array_t<float> project(py::handle images_object, py::handle theta_object, size_type channels) {
    auto images = c_array<float>(images_object, "obj", 3);
    if (images.shape(1) != images.shape(2)) bad_argument("obj", "images of shape " + shape_text(images) + " are not square");
    const size_type slices = images.shape(0), n = images.shape(1);
    if (slices < 1 || n < 1) bad_argument("obj", "empty array of shape " + shape_text(images));
    if (!py::isinstance<py::array>(theta_object)) bad_argument("theta", "expected a numpy array");
    const auto theta = angles(theta_object, py::reinterpret_borrow<py::array>(theta_object).size());
    if (theta.empty()) bad_argument("theta", "no angles");
    if (channels < 1) bad_argument("ncol", std::to_string(channels) + " is below 1");
    std::span<const float> in(images.data(), static_cast<std::size_t>(images.size()));
    std::vector<float> sinograms;
    {
        py::gil_scoped_release release;
        sinograms = xct::project_array(in, slices, n, theta, channels);
    }
    const auto angles_count = static_cast<py::ssize_t>(theta.size());
    // (slices, angles, channels) -> TomoPy's (angles, slices, channels).
    py::array_t<float> out({angles_count, static_cast<py::ssize_t>(slices), static_cast<py::ssize_t>(channels)});
    float* o = out.mutable_data();
    for (size_type j = 0; j < slices; ++j)
        for (py::ssize_t a = 0; a < angles_count; ++a)
            std::copy_n(sinograms.data() + (j * angles_count + a) * channels, channels, o + (a * slices + j) * channels);
    return out;
}


// Per-pixel means (slices x channels) of `frames` (count, slices, channels), summed in double
// as tessel-xct averages Data Exchange's flat and dark frames.
std::vector<float> frame_mean(const py::array_t<float>& frames) {
    const auto count = frames.shape(0);
    const auto pixels = frames.size() / count;
    const float* f = frames.data();
    std::vector<float> mean(static_cast<std::size_t>(pixels));
    for (py::ssize_t p = 0; p < pixels; ++p) {
        double sum = 0;
        for (py::ssize_t k = 0; k < count; ++k) sum += f[k * pixels + p];
        mean[p] = static_cast<float>(sum / double(count));
    }
    return mean;
}

py::array_t<float> fields(py::handle object, const std::string& name, const py::array_t<float>& tomo) {
    auto frames = c_array<float>(object, name, 3);
    if (frames.shape(0) < 1 || frames.shape(1) != tomo.shape(1) || frames.shape(2) != tomo.shape(2))
        bad_argument(name, "shape " + shape_text(frames) + " does not hold frames of tomo's (slices, channels) = (" +
                               std::to_string(tomo.shape(1)) + ", " + std::to_string(tomo.shape(2)) + ")");
    return frames;
}

// In place on `tomo` (a float32 copy the caller made): -log((tomo - dark) / (flat - dark)) with
// the frames' means, as tessel-xct preprocesses Data Exchange projections (ratios that are not
// positive or not finite become 1e-6). Returns how many were clamped.
size_type normalize(py::handle tomo_object, py::handle flat_object, py::handle dark_object) {
    auto tomo = c_array<float>(tomo_object, "tomo", 3);
    if (tomo.size() == 0) bad_argument("tomo", "empty array of shape " + shape_text(tomo));
    if (!tomo.writeable()) bad_argument("tomo", "read-only array");
    const auto white = frame_mean(fields(flat_object, "flat", tomo));
    std::vector<float> dark(white.size(), 0.0f);
    if (!dark_object.is_none()) dark = frame_mean(fields(dark_object, "dark", tomo));
    // As DataExchange::flat_dark_means: nothing can be normalised when white <= dark everywhere.
    bool any_above = false, any_different = false;
    for (std::size_t i = 0; i < white.size() && !any_above; ++i) {
        any_above = white[i] > dark[i];
        any_different = any_different || white[i] != dark[i];
    }
    if (!any_above)
        bad_argument("flat", any_different ? "flat is below dark everywhere (flat and dark fields swapped?), cannot normalise"
                                           : "flat equals dark everywhere (all-zero flat fields?), cannot normalise");
    const size_type angles = tomo.shape(0), image = tomo.shape(1) * tomo.shape(2);
    std::span<float> values(tomo.mutable_data(), static_cast<std::size_t>(tomo.size()));
    py::gil_scoped_release release;
    // One "slice" of `angles` rows of whole detector images: the means apply to every angle.
    return io::normalize_projections(values, white, dark, 1, angles, image);
}

// Vo's centre of slice `ind` of `tomo` (normalised, -log'ed), tessel-xct's --center auto.
double find_center(py::handle tomo_object, py::handle theta_object, size_type ind, double radius,
                   double fine_radius, double fine_step, size_type max_angles, bool sinogram_order) {
    auto tomo = c_array<float>(tomo_object, "tomo", 3);
    const size_type num_angles = tomo.shape(sinogram_order ? 1 : 0), slices = tomo.shape(sinogram_order ? 0 : 1),
                    channels = tomo.shape(2);
    if (num_angles < 1 || slices < 1 || channels < 1) bad_argument("tomo", "empty array of shape " + shape_text(tomo));
    const auto theta = angles(theta_object, num_angles);
    if (ind < 0 || ind >= slices)
        bad_argument("ind", "slice " + std::to_string(ind) + " outside the " + std::to_string(slices) + " slices of tomo");
    if (radius < 0) bad_argument("radius", "negative search radius");
    if (!(fine_radius >= 0)) bad_argument("fine_radius", "negative search radius");
    if (!(fine_step > 0)) bad_argument("fine_step", "step must be positive");
    if (max_angles < 8) bad_argument("max_angles", std::to_string(max_angles) + " is below 8");
    xct::CenterSearchOptions options;
    options.radius = radius;
    options.fine_radius = fine_radius;
    options.fine_step = fine_step;
    options.max_angles = max_angles;
    std::vector<float> sinogram(static_cast<std::size_t>(num_angles * channels));
    const float* t = tomo.data();
    for (size_type a = 0; a < num_angles; ++a)
        std::copy_n(t + (sinogram_order ? (ind * num_angles + a) : (a * slices + ind)) * channels, channels,
                    sinogram.data() + a * channels);
    py::gil_scoped_release release;
    return xct::find_center_vo(sinogram, num_angles, channels, theta, options);
}

}  // namespace

void bind_xct(py::module_& m) {
    m.def("_xct_reconstruct", &reconstruct, py::arg("tomo"), py::arg("theta"), py::arg("center"),
          py::arg("algorithm"), py::arg("num_iter"), py::arg("tol"), py::arg("nonneg"), py::arg("size"),
          py::arg("batch_slices"), py::arg("sinogram_order"), py::arg("order"), py::arg("backend"),
          py::arg("filter_name") = "ramp", py::arg("filter_cutoff") = 1.0, py::arg("precision") = "single",
          py::arg("transpose") = "stored", py::arg("operator_cache") = "", py::arg("turn_symmetry") = "auto");
    m.def("_xct_project", &project, py::arg("obj"), py::arg("theta"), py::arg("ncol"));
    m.def("_xct_normalize", &normalize, py::arg("tomo"), py::arg("flat"), py::arg("dark"));
    m.def("_xct_find_center", &find_center, py::arg("tomo"), py::arg("theta"), py::arg("ind"), py::arg("radius"),
          py::arg("fine_radius"), py::arg("fine_step"), py::arg("max_angles"), py::arg("sinogram_order"));
}

}  // namespace tessel::python
