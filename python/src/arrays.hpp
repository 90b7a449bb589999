// Checks of the numpy arguments: a wrong dtype, shape or memory order is a ValueError that
// names the argument, before any pointer is taken.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::python {

namespace py = pybind11;

/// Raises ValueError "name: what".
[[noreturn]] inline void bad_argument(const std::string& name, const std::string& what) {
    throw py::value_error(name + ": " + what);
}

inline std::string shape_text(const py::array& a) {
    std::string text = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) text += (d ? ", " : "") + std::to_string(a.shape(d));
    return text + (a.ndim() == 1 ? ",)" : ")");
}

/// `object` as a numpy array of T with `ndim` dimensions (no conversion, no copy).
template <typename T>
py::array_t<T> numpy_array(py::handle object, const std::string& name, py::ssize_t ndim) {
    if (!py::isinstance<py::array>(object))
        bad_argument(name, "expected a numpy array, got " + std::string(py::str(py::type::of(object).attr("__name__"))));
    auto array = py::reinterpret_borrow<py::array>(object);
    if (!py::isinstance<py::array_t<T>>(array))
        bad_argument(name, "dtype " + std::string(py::str(array.dtype())) + ", expected " +
                               std::string(py::str(py::dtype::of<T>())));
    if (array.ndim() != ndim)
        bad_argument(name, std::to_string(array.ndim()) + " dimensions " + shape_text(array) + ", expected " +
                               std::to_string(ndim));
    return py::reinterpret_borrow<py::array_t<T>>(array);
}

/// The same, and C-contiguous (row-major).
template <typename T>
py::array_t<T> c_array(py::handle object, const std::string& name, py::ssize_t ndim) {
    auto array = numpy_array<T>(object, name, ndim);
    if (!(array.flags() & py::array::c_style))
        bad_argument(name, "not C-contiguous (pass np.ascontiguousarray(" + name + "))");
    return array;
}

/// True when `object` is a numpy array of dtype T.
template <typename T>
bool has_dtype(py::handle object) {
    return py::isinstance<py::array_t<T>>(object);
}

/// A 1-D integer array (int32 or int64) as 64-bit values (a copy).
std::vector<std::int64_t> index_vector(py::handle object, const std::string& name);

}  // namespace tessel::python
