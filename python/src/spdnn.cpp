// tessel._spdnn_infer: Graph Challenge inference Y_{k+1} = min(32, max(0, Y_k·W_k + bias)) on
// scipy CSR weights and images (copied into tessel's CSR); returns the 0-based ids of the
// images whose final row is not all zero.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "apps/spdnn/driver/inference.hpp"
#include "arrays.hpp"
#include "bindings.hpp"

namespace tessel::python {

namespace {

// (rows, cols, indptr, indices, data) of a scipy CSR matrix as spdnn's float/int32 CSR.
spdnn::Layer csr_argument(py::handle parts_object, const std::string& name) {
    if (!py::isinstance<py::tuple>(parts_object) || py::len(parts_object) != 5)
        bad_argument(name, "expected a scipy.sparse CSR matrix");
    auto parts = py::reinterpret_borrow<py::tuple>(parts_object);
    const auto rows = parts[0].cast<size_type>(), cols = parts[1].cast<size_type>();
    const auto indptr = index_vector(parts[2], name + ".indptr");
    auto indices = numpy_array<std::int32_t>(parts[3], name + ".indices", 1);
    auto data = numpy_array<float>(parts[4], name + ".data", 1);
    if (static_cast<size_type>(indptr.size()) != rows + 1)
        bad_argument(name + ".indptr", std::to_string(indptr.size()) + " offsets for " + std::to_string(rows) + " rows");
    auto idx = indices.unchecked<1>();
    auto val = data.unchecked<1>();
    std::vector<spdnn::Index> col_idx(static_cast<std::size_t>(idx.shape(0)));
    std::vector<float> values(static_cast<std::size_t>(val.shape(0)));
    for (py::ssize_t i = 0; i < idx.shape(0); ++i) col_idx[i] = idx(i);
    for (py::ssize_t i = 0; i < val.shape(0); ++i) values[i] = val(i);
    return spdnn::Layer(rows, cols, std::vector<size_type>(indptr.begin(), indptr.end()), std::move(col_idx),
                        std::move(values), name);
}

py::array_t<std::int64_t> infer(py::list weights, double bias, py::handle images_object, const std::string& backend) {
    if (weights.size() == 0) bad_argument("weights", "no layers");
    spdnn::Network network;
    for (std::size_t k = 0; k < weights.size(); ++k) {
        const std::string name = "weights[" + std::to_string(k) + "]";
        network.layers.push_back(csr_argument(weights[k], name));
        const auto& w = network.layers.back();
        if (w.rows() != w.cols() || w.rows() != network.layers[0].rows())
            bad_argument(name, "shape (" + std::to_string(w.rows()) + ", " + std::to_string(w.cols()) +
                                   "), expected (" + std::to_string(network.layers[0].rows()) + ", " +
                                   std::to_string(network.layers[0].rows()) + ")");
    }
    network.neurons = network.layers[0].rows();
    network.bias = static_cast<spdnn::Value>(bias);
    const spdnn::Images images = csr_argument(images_object, "images");
    if (images.cols() != network.neurons)
        bad_argument("images", std::to_string(images.cols()) + " columns, expected " +
                                   std::to_string(network.neurons) + " (the neurons of the weights)");
    spdnn::InferenceOptions options;
    options.backend = parse_backend(backend);
    options.compaction = bias <= 0;  // rows of zeros stay zero only without a positive bias
    spdnn::InferenceResult result;
    {
        py::gil_scoped_release release;
        result = spdnn::infer(network, images, options);
    }
    py::array_t<std::int64_t> ids(static_cast<py::ssize_t>(result.categories.size()));
    for (std::size_t i = 0; i < result.categories.size(); ++i) ids.mutable_at(i) = result.categories[i] - 1;
    return ids;
}

}  // namespace

void bind_spdnn(py::module_& m) {
    m.def("_spdnn_infer", &infer, py::arg("weights"), py::arg("bias"), py::arg("images"), py::arg("backend") = "auto");
}

}  // namespace tessel::python
