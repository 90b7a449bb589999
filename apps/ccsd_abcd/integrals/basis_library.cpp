// Basis sets: the Gaussian94 reader (Psi4's .gbs flavour: a "spherical"/"cartesian" header, "****"
// between elements, SP shells) and the shells on the atoms.
#include "apps/ccsd_abcd/integrals/basis_library.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"

#ifndef TESSEL_BASIS_DIR
#define TESSEL_BASIS_DIR ""
#endif

namespace tessel::abcd {

namespace {

struct Contracted {
    int l = 0;
    std::vector<double> exponents, coefficients;
};

struct BasisFile {
    bool spherical = true;
    std::map<int, std::vector<Contracted>> elements;  // by atomic number
};

std::string lower(std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

bool skip(const std::string& line) {
    const auto first = line.find_first_not_of(" \t\r");
    return first == std::string::npos || line[first] == '!';
}

// Fortran exponents (1.0D+01) as C's.
double number(std::string token, const std::string& path, int line_no) {
    std::replace(token.begin(), token.end(), 'D', 'E');
    std::replace(token.begin(), token.end(), 'd', 'e');
    try {
        return std::stod(token);
    } catch (const std::exception&) {
        TESSEL_INVALID_INPUT(path, line_no, "'" + token + "' is not a number");
    }
}

// One shell block "S 3 1.00" and its primitive lines; SP gives an s and a p shell.
void read_shell(std::istream& in, const std::string& header, std::vector<Contracted>& out, const std::string& path,
                int& line_no) {
    std::istringstream h(header);
    std::string label;
    int nprim = 0;
    h >> label >> nprim;
    label = lower(label);
    static const std::string am = "spdfghi";
    const bool sp = label == "sp" || label == "l";
    if ((!sp && (label.size() != 1 || am.find(label[0]) == std::string::npos)) || nprim < 1)
        TESSEL_INVALID_INPUT(path, line_no, "expected a shell line such as 'S 3 1.00', got '" + header + "'");
    Contracted a, b;
    a.l = sp ? 0 : static_cast<int>(am.find(label[0]));
    b.l = 1;
    std::string line;
    for (int p = 0; p < nprim; ++p) {
        do {
            if (!std::getline(in, line)) TESSEL_INVALID_INPUT(path, line_no, "the file ends inside a shell");
            ++line_no;
        } while (skip(line));
        std::istringstream l(line);
        std::string e, c1, c2;
        l >> e >> c1 >> c2;
        a.exponents.push_back(number(e, path, line_no));
        a.coefficients.push_back(number(c1, path, line_no));
        if (sp) {
            b.exponents.push_back(a.exponents.back());
            b.coefficients.push_back(number(c2, path, line_no));
        }
    }
    out.push_back(std::move(a));
    if (sp) out.push_back(std::move(b));
}

BasisFile read_basis_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) TESSEL_INVALID_INPUT(path, 0, "cannot be opened");
    BasisFile f;
    std::string line;
    int line_no = 0, z = 0;
    bool want_element = true;
    while (std::getline(in, line)) {
        ++line_no;
        if (skip(line)) continue;
        std::istringstream words(line);
        std::string first;
        words >> first;
        if (lower(first) == "spherical" || lower(first) == "cartesian") {
            f.spherical = lower(first) == "spherical";
        } else if (first == "****") {
            want_element = true;
        } else if (want_element) {
            z = atomic_number(first);  // elements past Kr are skipped
            want_element = false;
        } else {
            std::vector<Contracted> shells;
            read_shell(in, line, shells, path, line_no);
            if (z > 0) for (auto& s : shells) f.elements[z].push_back(std::move(s));
        }
    }
    return f;
}

libint2::Shell make_shell(const Contracted& c, bool spherical, const Point3& at) {
    libint2::svector<double> e(c.exponents.begin(), c.exponents.end());
    libint2::svector<double> k(c.coefficients.begin(), c.coefficients.end());
    // libint2 keeps p Cartesian; a spherical set's d and higher are solid harmonics.
    return libint2::Shell{std::move(e), {{c.l, spherical && c.l > 1, std::move(k)}}, {{at[0], at[1], at[2]}}};
}

}  // namespace

std::vector<ShellKind> AoBasis::kinds() const {
    std::vector<ShellKind> k;
    for (const auto& s : shells) k.push_back({s.contr[0].l, s.contr[0].pure});
    return k;
}

std::string basis_directory(const std::string& packaged) {
    if (const char* env = std::getenv("TESSEL_BASIS_DIR"); env && *env) return env;
    if (!packaged.empty()) return packaged;
    // An installed program: <prefix>/bin/tessel-abcd finds <prefix>/share/tessel/basis.
    std::error_code ec;
    const auto program = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto installed = program.parent_path().parent_path() / "share" / "tessel" / "basis";
        if (std::filesystem::is_directory(installed, ec)) return installed.string();
    }
    return TESSEL_BASIS_DIR;  // the source tree's, for programs run from the build folder
}

std::vector<std::string> known_bases(const std::string& directory) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(directory, ec))
        if (e.path().extension() == ".gbs") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

AoBasis load_basis(const std::string& name, const XyzMolecule& mol, const std::string& molecule_name,
                   const std::string& directory) {
    const std::string canonical = lower(name);
    const auto known = known_bases(directory);
    if (std::find(known.begin(), known.end(), canonical) == known.end()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        TESSEL_INVALID_INPUT("--basis", 0, "'" + name + "' is not a basis set in " + directory + " (known: " +
                                               (list.empty() ? "none" : list) + ")");
    }
    const BasisFile file = read_basis_file(directory + "/" + canonical + ".gbs");
    AoBasis b;
    b.name = canonical;
    b.spherical = file.spherical;
    for (std::size_t a = 0; a < mol.atoms.size(); ++a) {
        const auto it = file.elements.find(mol.atoms[a].z);
        if (it == file.elements.end())
            TESSEL_INVALID_INPUT(molecule_name, static_cast<std::int64_t>(a + 3),
                                 "basis " + canonical + " has no functions for element " + mol.atoms[a].symbol);
        for (const auto& c : it->second) {
            b.shells.push_back(make_shell(c, file.spherical, mol.atoms[a].position));
            b.shell_atom.push_back(static_cast<size_type>(a));
            b.first_function.push_back(b.functions);
            b.functions += static_cast<size_type>(b.shells.back().size());
        }
    }
    return b;
}

}  // namespace tessel::abcd
