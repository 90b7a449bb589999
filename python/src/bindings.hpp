// The functions of tessel._tessel, one file per part.
#pragma once

#include <pybind11/pybind11.h>

namespace tessel::python {

void bind_spmm(pybind11::module_& m);   // _spmm
void bind_xct(pybind11::module_& m);    // _xct_reconstruct, _xct_project, _xct_normalize, _xct_find_center
void bind_spdnn(pybind11::module_& m);  // _spdnn_infer
void bind_abcd(pybind11::module_& m);   // _abcd_ladder

}  // namespace tessel::python
