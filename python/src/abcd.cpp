// tessel._abcd_ladder: the ladder term R[i,j,a,b] = Σ_cd t2[i,j,c,d] (ac|bd) of a molecule (XYZ
// text or file, a basis set name) from numpy amplitudes and virtual coefficients; B's tiles are
// the two-electron integrals from libint2, made on demand (NotCompiled without libint2).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <sstream>

#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/integrals/amplitudes.hpp"
#include "apps/ccsd_abcd/integrals/xyz_molecule.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"

#ifdef TESSEL_ABCD_HAVE_LIBINT2
#include "apps/ccsd_abcd/integrals/ladder.hpp"
#endif

namespace tessel::python {

namespace {

// XYZ text (it has a line break) or the name of an XYZ file.
abcd::XyzMolecule molecule_argument(const std::string& xyz) {
    if (xyz.find('\n') == std::string::npos) return abcd::read_xyz(xyz);
    std::istringstream in(xyz);
    return abcd::parse_xyz(in, "xyz");
}

template <typename T>
std::vector<double> copied(const py::array_t<T>& a) {
    const auto* p = a.data();
    return std::vector<double>(p, p + a.size());
}

py::array_t<double> ladder(const std::string& xyz, const std::string& basis, py::handle c_vir_object,
                           py::handle t2_object, const std::string& ao_order, double threshold,
                           const std::string& backend, size_type cluster_size, const std::string& basis_dir) {
    auto c_vir = numpy_array<double>(c_vir_object, "c_vir", 2);
    auto t2 = numpy_array<double>(t2_object, "t2", 4);
    if (!(c_vir.flags() & py::array::c_style)) bad_argument("c_vir", "not C-contiguous (use numpy.ascontiguousarray)");
    if (!(t2.flags() & py::array::c_style)) bad_argument("t2", "not C-contiguous (use numpy.ascontiguousarray)");
    abcd::check_amplitude_shapes({t2.shape(0), t2.shape(1), t2.shape(2), t2.shape(3)}, {c_vir.shape(0), c_vir.shape(1)},
                                 "ladder");
    abcd::Amplitudes amp;
    amp.order = abcd::parse_ao_order(ao_order, "ao_order");
    amp.nocc = t2.shape(0);
    amp.nvir = t2.shape(2);
    amp.nbf = c_vir.shape(0);
    amp.t2 = copied(t2);
    amp.c_vir = copied(c_vir);
    const abcd::XyzMolecule mol = molecule_argument(xyz);
#ifdef TESSEL_ABCD_HAVE_LIBINT2
    abcd::LadderOptions o;
    o.molecule_name = xyz.find('\n') == std::string::npos ? xyz : "xyz";
    o.basis = basis;
    o.threshold = threshold;
    o.cluster_size = cluster_size;
    o.basis_dir = basis_dir;
    const Backend b = parse_backend(backend);
    std::vector<double> r;
    {
        py::gil_scoped_release release;
        r = abcd::evaluate_ladder(mol, amp, o, b);
    }
    py::array_t<double> out({amp.nocc, amp.nocc, amp.nvir, amp.nvir});
    std::copy(r.begin(), r.end(), out.mutable_data());
    return out;
#else
    (void)basis, (void)threshold, (void)backend, (void)cluster_size, (void)basis_dir;
    TESSEL_THROW(NotCompiled, "tessel.abcd.ladder: tessel was built without libint2, which makes the integrals "
                              "(install libint2-dev and build again)");
#endif
}

}  // namespace

void bind_abcd(py::module_& m) {
    m.def("_abcd_ladder", &ladder, py::arg("xyz"), py::arg("basis"), py::arg("c_vir"), py::arg("t2"),
          py::arg("ao_order"), py::arg("threshold"), py::arg("backend"), py::arg("cluster_size"), py::arg("basis_dir"));
    m.def("_abcd_kept_device_bytes", &abcd::kept_device_bytes, py::arg("device"));
    m.def("_abcd_release_kept_devices", &abcd::release_kept_devices);
}

}  // namespace tessel::python
