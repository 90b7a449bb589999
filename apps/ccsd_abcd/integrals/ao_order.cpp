// AO orders: the position of each libint2 function of a shell in another program's order.
#include "apps/ccsd_abcd/integrals/ao_order.hpp"

#include <cctype>

#include "core/error.hpp"

namespace tessel::abcd {

namespace {

// Psi4's place of the spherical function m (libint's index m + l): 0, +1, -1, +2, -2, ...
size_type psi4_spherical(int m) { return m == 0 ? 0 : (m > 0 ? 2 * m - 1 : -2 * m); }

// Psi4's place of libint's Cartesian p function x, y, z (index 0, 1, 2) in a spherical basis:
// p0 = z first, then p+1 = x, p-1 = y.
size_type psi4_pure_p(int k) { return k == 2 ? 0 : k + 1; }

}  // namespace

AoOrder parse_ao_order(const std::string& name, const std::string& where) {
    std::string s;
    for (char ch : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (s == "libint" || s == "libint2") return AoOrder::libint;
    if (s == "psi4") return AoOrder::psi4;
    if (s == "pyscf") return AoOrder::pyscf;
    TESSEL_INVALID_INPUT(where, 0, "'" + name + "' is not an AO order (psi4, pyscf or libint)");
}

std::string to_string(AoOrder order) {
    return order == AoOrder::psi4 ? "psi4" : order == AoOrder::pyscf ? "pyscf" : "libint";
}

std::vector<size_type> ao_positions(const std::vector<ShellKind>& shells, AoOrder order, bool spherical) {
    std::vector<size_type> pos;
    size_type start = 0;
    for (const ShellKind& s : shells) {
        const int n = s.pure ? 2 * s.l + 1 : (s.l + 1) * (s.l + 2) / 2;
        for (int k = 0; k < n; ++k) {
            size_type at = k;
            if (order == AoOrder::psi4 && s.pure) at = psi4_spherical(k - s.l);
            else if (order == AoOrder::psi4 && s.l == 1 && spherical) at = psi4_pure_p(k);
            pos.push_back(start + at);
        }
        start += n;
    }
    return pos;
}

}  // namespace tessel::abcd
