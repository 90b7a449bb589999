// XYZ molecules: the element table, the reader and its checks.
#include "apps/ccsd_abcd/integrals/xyz_molecule.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"

namespace tessel::abcd {

namespace {

constexpr std::array<const char*, 36> symbols = {
    "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",  "S",  "Cl", "Ar",
    "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr"};

std::string lower(std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

// A coordinate: the whole token must be a finite number.
bool parse_coordinate(const std::string& token, double& out) {
    std::size_t used = 0;
    try {
        out = std::stod(token, &used);
    } catch (const std::exception&) {
        return false;
    }
    return used == token.size() && std::isfinite(out);
}

Atom parse_atom(const std::string& line, const std::string& name, int line_no) {
    std::istringstream in(line);
    std::string element, coords[3];
    in >> element >> coords[0] >> coords[1] >> coords[2];
    if (coords[2].empty())
        TESSEL_INVALID_INPUT(name, line_no, "expected 'Symbol x y z' (Å), got '" + line + "'");
    Atom atom;
    atom.z = atomic_number(element);
    if (atom.z == 0 && !element.empty() && std::all_of(element.begin(), element.end(), ::isdigit)) {
        const int z = std::atoi(element.c_str());
        if (z >= 1 && z <= static_cast<int>(symbols.size())) atom.z = z;
    }
    if (atom.z == 0) TESSEL_INVALID_INPUT(name, line_no, "'" + element + "' is not an element (H to Kr)");
    atom.symbol = symbols[static_cast<std::size_t>(atom.z - 1)];
    for (int d = 0; d < 3; ++d) {
        double v = 0;
        if (!parse_coordinate(coords[d], v))
            TESSEL_INVALID_INPUT(name, line_no, "coordinate '" + coords[d] + "' is not a finite number");
        atom.position[static_cast<std::size_t>(d)] = v * bohr_per_angstrom;
    }
    return atom;
}

// Two atoms on one spot make the basis linearly dependent and the nuclear repulsion infinite.
void require_apart(const std::vector<Atom>& atoms, const std::string& name) {
    constexpr double min_angstrom = 0.1;
    for (std::size_t a = 0; a < atoms.size(); ++a)
        for (std::size_t b = a + 1; b < atoms.size(); ++b) {
            double d2 = 0;
            for (int k = 0; k < 3; ++k) d2 += std::pow(atoms[a].position[k] - atoms[b].position[k], 2);
            const double d = std::sqrt(d2) / bohr_per_angstrom;
            if (d < min_angstrom) {
                char what[160];
                std::snprintf(what, sizeof what, "atoms %zu and %zu are %.3f Å apart: two atoms on one spot", a + 1,
                              b + 1, d);
                TESSEL_INVALID_INPUT(name, static_cast<std::int64_t>(b + 3), what);
            }
        }
}

}  // namespace

int atomic_number(const std::string& symbol) {
    const std::string s = lower(symbol);
    for (std::size_t z = 0; z < symbols.size(); ++z)
        if (lower(symbols[z]) == s) return static_cast<int>(z + 1);
    return 0;
}

int XyzMolecule::electrons() const {
    int n = 0;
    for (const auto& a : atoms) n += a.z;
    return n;
}

std::string XyzMolecule::formula() const {
    std::map<std::string, int> count;
    for (const auto& a : atoms) ++count[a.symbol];
    std::string out;
    auto put = [&](const std::string& s) {
        auto it = count.find(s);
        if (it == count.end()) return;
        out += s + (it->second > 1 ? std::to_string(it->second) : "");
        count.erase(it);
    };
    if (count.count("C")) {
        put("C");
        put("H");
    }
    while (!count.empty()) put(count.begin()->first);
    return out;
}

XyzMolecule parse_xyz(std::istream& in, const std::string& name) {
    std::string line;
    if (!std::getline(in, line)) TESSEL_INVALID_INPUT(name, 1, "empty file: expected the atom count");
    long count = 0;
    {
        std::istringstream first(line);
        std::string extra;
        if (!(first >> count) || (first >> extra) || count < 1)
            TESSEL_INVALID_INPUT(name, 1, "expected the atom count (a positive integer), got '" + line + "'");
    }
    XyzMolecule mol;
    std::getline(in, mol.comment);
    for (long a = 0; a < count; ++a) {
        const int line_no = static_cast<int>(a + 3);
        if (!std::getline(in, line))
            TESSEL_INVALID_INPUT(name, line_no, "the file ends after " + std::to_string(a) + " of " +
                                                    std::to_string(count) + " atoms");
        mol.atoms.push_back(parse_atom(line, name, line_no));
    }
    require_apart(mol.atoms, name);
    return mol;
}

XyzMolecule read_xyz(const std::string& path) {
    std::ifstream in(path);
    if (!in) TESSEL_INVALID_INPUT(path, 0, "cannot be opened");
    return parse_xyz(in, path);
}

}  // namespace tessel::abcd
