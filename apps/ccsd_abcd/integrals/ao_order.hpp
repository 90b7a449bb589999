// The order of the basis functions inside a shell, as each program writes its AO coefficients,
// and the permutation from one to libint2's. Needs no integral library.
//
// Every program puts the shells in the same order (atom by atom as the XYZ file lists them, each
// atom's shells as the basis set file lists them); they differ inside a shell:
//   libint  (libint2 2.7, "standard" orderings): s; p as x, y, z (always Cartesian); a spherical
//           shell of l >= 2 as m = -l, ..., 0, ..., +l; a Cartesian one as xx, xy, xz, yy, yz, zz.
//   psi4    (Psi4 1.3): in a spherical basis (puream: cc-pVDZ, def2-SVP) p as p0, p+1, p-1 = z, x, y
//           and every l >= 2 as m = 0, +1, -1, +2, -2, ..., +l, -l; in a Cartesian basis (STO-3G)
//           p as x, y, z and Cartesian shells as libint.
//   pyscf   (PySCF's spherical "sph" functions): p as x, y, z; l >= 2 as m = -l, ..., +l: as libint.
// The real solid harmonics have the same signs and norms in all three, so the map is a permutation.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

enum class AoOrder { libint, psi4, pyscf };

/// "libint" / "psi4" / "pyscf" (any case); InvalidInput "where: 'x' is not an AO order ...".
AoOrder parse_ao_order(const std::string& name, const std::string& where);
std::string to_string(AoOrder order);

/// One shell as the orderings see it.
struct ShellKind {
    int l = 0;
    bool pure = false;  ///< spherical (libint makes only l >= 2 spherical)
};

/// position[k]: the index, in `order`, of the basis function that libint numbers k. `spherical`
/// says whether the basis set is spherical (puream) as a whole, which decides Psi4's p order.
std::vector<size_type> ao_positions(const std::vector<ShellKind>& shells, AoOrder order, bool spherical);

}  // namespace tessel::abcd
