// A molecule from an XYZ file (Ångström): the atoms' elements and positions, read with one clear
// line for every kind of bad input. Needs no integral library.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "apps/ccsd_abcd/problem/orbital_clusters.hpp"

namespace tessel::abcd {

/// Bohr per Ångström as Psi4 1.3 uses it (CODATA 2014: 1 bohr = 0.52917721067 Å), so that a
/// geometry given in Å here and to Psi4 lands on the same nuclei to the last bit that matters.
inline constexpr double bohr_per_angstrom = 1.0 / 0.52917721067;

struct Atom {
    int z = 0;              ///< atomic number
    std::string symbol;     ///< "C", "H" (as the periodic table spells it)
    Point3 position{};      ///< bohr
};

struct XyzMolecule {
    std::vector<Atom> atoms;
    std::string comment;  ///< the file's second line
    /// Electrons of the neutral molecule (Σ Z).
    int electrons() const;
    /// "C6H14" (Hill order: C, H, then the others alphabetically).
    std::string formula() const;
};

/// Atomic number of an element symbol (any case: "he", "HE"), 0 when it is none (H to Kr known).
int atomic_number(const std::string& symbol);

/// Reads the XYZ text: line 1 the atom count, line 2 a comment, then one "Symbol x y z" line per
/// atom in Ångström (extra columns ignored, an atomic number in place of the symbol accepted).
/// Throws InvalidInput "name:LINE: what": a count that is not a positive integer, fewer atom
/// lines than the count, an unknown element, a coordinate that is not a finite number, two atoms
/// closer than 0.1 Å ("atoms 1 and 3 are 0.000 Å apart: two atoms on one spot").
XyzMolecule parse_xyz(std::istream& in, const std::string& name);

/// parse_xyz on a file; InvalidInput "path: cannot be opened" when it cannot be read.
XyzMolecule read_xyz(const std::string& path);

}  // namespace tessel::abcd
