// tessel._tessel: the compiled half of the `tessel` package (the .py files hold the API).
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "core/version.hpp"
#include "errors.hpp"

PYBIND11_MODULE(_tessel, m) {
    m.doc() = "tessel: sparse SpMM, X-ray CT reconstruction and sparse DNN inference";
    m.attr("__version__") = std::string(tessel::version);
    tessel::python::register_errors(m);
    tessel::python::bind_spmm(m);
    tessel::python::bind_xct(m);
    tessel::python::bind_spdnn(m);
    tessel::python::bind_abcd(m);
}
