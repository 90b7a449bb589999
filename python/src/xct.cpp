// tessel._xct_reconstruct and _xct_project over numpy arrays (xct's in-memory API,
// apps/xct/api.hpp). The volume is allocated here and written in place; the GIL is released
// while tessel computes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "apps/xct/api.hpp"
#include "arrays.hpp"
#include "bindings.hpp"

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
                      const std::string& backend) {
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
    xct::ArrayReconstructOptions o;
    o.solver.algorithm = xct::parse_algorithm(algorithm);
    o.solver.iterations = num_iter;
    o.solver.tol = tol;
    o.solver.nonneg = nonneg;
    o.center = center;
    o.size = size;
    o.batch_slices = batch_slices;
    o.order = xct::parse_domain_order(order);
    o.projector.backend = parse_backend(backend);
    if (o.projector.backend == Backend::automatic) o.projector.backend = Backend::cpu;
    const size_type n = size > 0 ? size : s.channels;
    py::array_t<float> volume({static_cast<py::ssize_t>(s.slices), static_cast<py::ssize_t>(n),
                               static_cast<py::ssize_t>(n)});
    std::span<float> out(volume.mutable_data(), static_cast<std::size_t>(volume.size()));
    xct::ArrayReconstructInfo info;
    {
        py::gil_scoped_release release;
        info = xct::reconstruct_array(s, o, out);
    }
    py::dict details;
    details["iterations"] = info.iterations;
    details["batch_slices"] = info.batch_slices;
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

}  // namespace

void bind_xct(py::module_& m) {
    m.def("_xct_reconstruct", &reconstruct, py::arg("tomo"), py::arg("theta"), py::arg("center"),
          py::arg("algorithm"), py::arg("num_iter"), py::arg("tol"), py::arg("nonneg"), py::arg("size"),
          py::arg("batch_slices"), py::arg("sinogram_order"), py::arg("order"), py::arg("backend"));
    m.def("_xct_project", &project, py::arg("obj"), py::arg("theta"), py::arg("ncol"));
}

}  // namespace tessel::python
