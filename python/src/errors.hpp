// Registers tessel's exceptions on the module and their translation from C++.
#pragma once

#include <pybind11/pybind11.h>

namespace tessel::python {

void register_errors(pybind11::module_& m);

}  // namespace tessel::python
