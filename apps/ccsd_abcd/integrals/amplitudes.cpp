// Amplitudes in, R out (HDF5).
#include "apps/ccsd_abcd/integrals/amplitudes.hpp"

#include <cmath>

#include "core/error.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::abcd {

namespace {

std::string shape_text(const std::vector<size_type>& s) {
    std::string out;
    for (std::size_t d = 0; d < s.size(); ++d) out += (d ? " x " : "") + std::to_string(s[d]);
    return out;
}

void require_finite(const std::vector<double>& v, const std::string& where) {
    for (std::size_t x = 0; x < v.size(); ++x)
        if (!std::isfinite(v[x]))
            TESSEL_INVALID_INPUT(where, static_cast<std::int64_t>(x), "value is " + std::to_string(v[x]) +
                                                                          "; amplitudes and coefficients must be finite");
}

}  // namespace

void check_amplitude_shapes(const std::vector<size_type>& t, const std::vector<size_type>& c, const std::string& where) {
    if (t.size() != 4 || t[0] != t[1] || t[2] != t[3])
        TESSEL_INVALID_INPUT(where, 0, "t2 must be (nocc, nocc, nvir, nvir), its shape is " + shape_text(t));
    if (c.size() != 2) TESSEL_INVALID_INPUT(where, 0, "c_vir must be (nbf, nvir), its shape is " + shape_text(c));
    if (c[1] != t[2])
        TESSEL_INVALID_INPUT(where, 0, "t2 has nvir = " + std::to_string(t[2]) + " (shape " + shape_text(t) +
                                           ") but c_vir has " + std::to_string(c[1]) + " columns (shape " +
                                           shape_text(c) + ")");
    if (t[0] < 1 || t[2] < 1) TESSEL_INVALID_INPUT(where, 0, "t2 is empty (shape " + shape_text(t) + ")");
}

Amplitudes read_amplitudes(const std::string& path) {
    const io::File f = io::File::open(path);
    for (const char* name : {"/t2", "/c_vir"})
        if (!f.exists(name)) TESSEL_INVALID_INPUT(path + ":" + name, 0, "dataset not found");
    const auto ts = f.shape("/t2");
    const auto cs = f.shape("/c_vir");
    check_amplitude_shapes(ts, cs, path);
    std::string order;
    if (f.has_attribute("/c_vir", "ao_order")) order = f.read_string_attribute("/c_vir", "ao_order");
    else if (f.has_attribute("/", "ao_order")) order = f.read_string_attribute("/", "ao_order");
    else
        TESSEL_INVALID_INPUT(path + ":/c_vir", 0,
                             "no attribute ao_order (psi4, pyscf or libint: the AO order of c_vir's rows)");
    Amplitudes a;
    a.order = parse_ao_order(order, path + ":/c_vir: ao_order");
    a.nocc = ts[0];
    a.nvir = ts[2];
    a.nbf = cs[0];
    a.t2 = f.read<double>("/t2");
    a.c_vir = f.read<double>("/c_vir");
    require_finite(a.t2, path + ":/t2");
    require_finite(a.c_vir, path + ":/c_vir");
    return a;
}

void write_ladder_result(const std::string& path, const Amplitudes& amp, const std::vector<double>& r) {
    io::File f = io::File::create(path);
    f.write<double>("/r", {amp.nocc, amp.nocc, amp.nvir, amp.nvir}, r.data());
    f.write_attribute("/r", "definition", "R[i,j,a,b] = sum_cd t2[i,j,c,d] (ac|bd)");
    f.commit();
}

}  // namespace tessel::abcd
