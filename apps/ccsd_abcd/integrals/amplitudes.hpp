// The amplitudes file: t2 (nocc, nocc, nvir, nvir) and c_vir (nbf, nvir) whose rows are in the AO
// order named by c_vir's attribute ao_order; and R written back with t2's shape. Needs no
// integral library.
#pragma once

#include <string>
#include <vector>

#include "apps/ccsd_abcd/integrals/ao_order.hpp"
#include "core/types.hpp"

namespace tessel::abcd {

struct Amplitudes {
    size_type nocc = 0, nvir = 0, nbf = 0;
    std::vector<double> t2;     ///< row-major (i, j, c, d)
    std::vector<double> c_vir;  ///< row-major (μ, c), μ in `order`
    AoOrder order = AoOrder::libint;
};

/// Checks the shapes (t2 four-dimensional with equal occupied and equal virtual extents, c_vir's
/// columns t2's virtuals); `where` names the input in the messages ("amp.h5"). InvalidInput
/// "amp.h5: t2 has nvir = 5 (shape 2 x 2 x 5 x 5) but c_vir has 4 columns (shape 24 x 4)".
void check_amplitude_shapes(const std::vector<size_type>& t2_shape, const std::vector<size_type>& c_shape,
                            const std::string& where);

/// Reads amp.h5 (datasets /t2, /c_vir; attribute ao_order of /c_vir, or of the file). Throws
/// InvalidInput as check_amplitude_shapes, "amp.h5:/c_vir: no attribute ao_order (psi4, pyscf or
/// libint: the AO order of c_vir's rows)", and for missing or non-finite data.
Amplitudes read_amplitudes(const std::string& path);

/// Writes /r (nocc, nocc, nvir, nvir) to `path`.
void write_ladder_result(const std::string& path, const Amplitudes& amp, const std::vector<double>& r);

}  // namespace tessel::abcd
