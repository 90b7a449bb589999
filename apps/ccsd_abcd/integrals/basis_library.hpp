// Basis sets by name: the Gaussian94 files of basis/ (sto-3g, cc-pvdz, def2-svp, as Psi4 ships
// them: Debian's libint2-dev has no basis library) read into libint2 shells on the atoms.
#pragma once

#include <string>
#include <vector>

#include <libint2/shell.h>

#include "apps/ccsd_abcd/integrals/ao_order.hpp"
#include "apps/ccsd_abcd/integrals/xyz_molecule.hpp"

namespace tessel::abcd {

/// A basis on a molecule: shells atom by atom (each atom's in the file's order), libint2's
/// function order inside a shell (p Cartesian, l >= 2 spherical in a spherical set).
struct AoBasis {
    std::string name;       ///< lower case: "cc-pvdz"
    bool spherical = true;  ///< the file's header (Psi4's puream)
    std::vector<libint2::Shell> shells;
    std::vector<size_type> shell_atom;      ///< atom of every shell
    std::vector<size_type> first_function;  ///< libint index of every shell's first function
    size_type functions = 0;
    std::vector<ShellKind> kinds() const;
};

/// Where the basis files are: $TESSEL_BASIS_DIR when set, else `packaged` (a Python package's
/// own folder) when given, else <prefix>/share/tessel/basis beside an installed program, else
/// the source tree's.
std::string basis_directory(const std::string& packaged = "");

/// The names of the basis files there (sorted).
std::vector<std::string> known_bases(const std::string& directory = basis_directory());

/// The basis `name` (any case) on `mol`. Throws InvalidInput "--basis: 'x' is not a basis set
/// in DIR (known: ...)" and "<molecule>:LINE: basis cc-pvdz has no functions for element Kr".
AoBasis load_basis(const std::string& name, const XyzMolecule& mol, const std::string& molecule_name,
                   const std::string& directory = basis_directory());

}  // namespace tessel::abcd
