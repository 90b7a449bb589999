// tessel-abcd on real molecules: the XYZ reader, the AO orders, the basis library, the amplitude
// shapes and the integral tiles, each bad input with its exact message.
#include <catch2/catch.hpp>

#include <sstream>

#include "apps/ccsd_abcd/integrals/amplitudes.hpp"
#include "apps/ccsd_abcd/integrals/ao_order.hpp"
#include "apps/ccsd_abcd/integrals/xyz_molecule.hpp"
#include "core/error.hpp"
#include "io/hdf5_file.hpp"

#ifdef TESSEL_ABCD_HAVE_LIBINT2
#include "apps/ccsd_abcd/integrals/ladder.hpp"
#include "apps/ccsd_abcd/results/dense_verification.hpp"
#endif

using namespace tessel;
using namespace tessel::abcd;

namespace {

std::string xyz_error(const std::string& text) {
    std::istringstream in(text);
    try {
        parse_xyz(in, "mol.xyz");
    } catch (const InvalidInput& e) {
        return e.message();
    }
    return "no error";
}

const char* water = "3\nwater\nO 0 0 0.1173\nH 0 0.7572 -0.4692\nH 0 -0.7572 -0.4692\n";

}  // namespace

TEST_CASE("xyz: atoms in bohr, elements by symbol or number", "[abcd][chem]") {
    std::istringstream in(water);
    const XyzMolecule m = parse_xyz(in, "w.xyz");
    REQUIRE(m.atoms.size() == 3);
    CHECK(m.atoms[0].z == 8);
    CHECK(m.atoms[1].symbol == "H");
    CHECK(m.atoms[1].position[1] == Approx(0.7572 / 0.52917721067).epsilon(1e-15));
    CHECK(m.electrons() == 10);
    CHECK(m.formula() == "H2O");
    std::istringstream ethane("2\n\n6 0 0 0\nc 1.54 0 0\n");
    CHECK(parse_xyz(ethane, "e.xyz").formula() == "C2");
}

TEST_CASE("xyz: bad input, one line each", "[abcd][chem]") {
    CHECK(xyz_error("") == "mol.xyz:1: empty file: expected the atom count");
    CHECK(xyz_error("two\n") == "mol.xyz:1: expected the atom count (a positive integer), got 'two'");
    CHECK(xyz_error("3\nc\nO 0 0 0\n") == "mol.xyz:4: the file ends after 1 of 3 atoms");
    CHECK(xyz_error("1\nc\nXx 0 0 0\n") == "mol.xyz:3: 'Xx' is not an element (H to Kr)");
    CHECK(xyz_error("1\nc\nH 0 0\n") == "mol.xyz:3: expected 'Symbol x y z' (Å), got 'H 0 0'");
    CHECK(xyz_error("1\nc\nH 0 nan 0\n") == "mol.xyz:3: coordinate 'nan' is not a finite number");
    CHECK(xyz_error("3\nc\nO 0 0 0\nH 0 0 1\nH 0 0.00001 0\n") ==
          "mol.xyz:5: atoms 1 and 3 are 0.000 Å apart: two atoms on one spot");
}

TEST_CASE("AO orders: Psi4's and PySCF's places of libint2's functions", "[abcd][chem]") {
    // s, p, d (spherical), Cartesian d.
    const std::vector<ShellKind> shells{{0, false}, {1, false}, {2, true}, {2, false}};
    CHECK(ao_positions(shells, AoOrder::libint, true) == std::vector<size_type>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
    // Psi4, spherical: p x,y,z at 2,3,1 (z first); d m=-2..2 at 4 + {4, 2, 0, 1, 3} (0, +1, -1, +2, -2).
    CHECK(ao_positions(shells, AoOrder::psi4, true) == std::vector<size_type>{0, 2, 3, 1, 8, 6, 4, 5, 7, 9, 10, 11, 12, 13, 14});
    // Psi4, Cartesian basis: p as x, y, z.
    CHECK(ao_positions({{1, false}}, AoOrder::psi4, false) == std::vector<size_type>{0, 1, 2});
    // PySCF: p x, y, z and d m = -2..2 as libint.
    CHECK(ao_positions(shells, AoOrder::pyscf, true) == ao_positions(shells, AoOrder::libint, true));
    // f: m = -3..3 go to 6, 4, 2, 0, 1, 3, 5.
    CHECK(ao_positions({{3, true}}, AoOrder::psi4, true) == std::vector<size_type>{6, 4, 2, 0, 1, 3, 5});
    CHECK(parse_ao_order("PySCF", "x") == AoOrder::pyscf);
    try {
        parse_ao_order("orca", "amp.h5:/c_vir: ao_order");
        FAIL("no error");
    } catch (const InvalidInput& e) {
        CHECK(e.message() == "amp.h5:/c_vir: ao_order: 'orca' is not an AO order (psi4, pyscf or libint)");
    }
}

TEST_CASE("amplitudes: shapes and the ao_order attribute", "[abcd][chem]") {
    auto shape_error = [](std::vector<size_type> t, std::vector<size_type> c) {
        try {
            check_amplitude_shapes(t, c, "amp.h5");
        } catch (const InvalidInput& e) {
            return e.message();
        }
        return std::string("no error");
    };
    CHECK(shape_error({2, 2, 5, 5}, {24, 5}) == "no error");
    CHECK(shape_error({2, 2, 5, 5}, {24, 4}) ==
          "amp.h5: t2 has nvir = 5 (shape 2 x 2 x 5 x 5) but c_vir has 4 columns (shape 24 x 4)");
    CHECK(shape_error({2, 3, 5, 5}, {24, 5}) == "amp.h5: t2 must be (nocc, nocc, nvir, nvir), its shape is 2 x 3 x 5 x 5");
    const std::string path = "test_chem_no_order.h5";
    {
        io::File f = io::File::create(path);
        const std::vector<double> t(16, 0.1), c(12, 0.2);
        f.write<double>("/t2", {2, 2, 2, 2}, t.data());
        f.write<double>("/c_vir", {6, 2}, c.data());
        f.commit();
    }
    try {
        read_amplitudes(path);
        FAIL("no error");
    } catch (const InvalidInput& e) {
        CHECK(e.message() == path + ":/c_vir: no attribute ao_order (psi4, pyscf or libint: the AO order of c_vir's rows)");
    }
    {
        io::File f = io::File::open_for_update(path);
        f.write_attribute("/c_vir", "ao_order", "psi4");
    }
    const Amplitudes a = read_amplitudes(path);
    CHECK(a.order == AoOrder::psi4);
    CHECK(a.nocc == 2);
    CHECK(a.nbf == 6);
}

#ifdef TESSEL_ABCD_HAVE_LIBINT2

namespace {

XyzMolecule molecule(const std::string& text) {
    std::istringstream in(text);
    return parse_xyz(in, "mol.xyz");
}

}  // namespace

TEST_CASE("basis library: names, elements, function counts", "[abcd][chem]") {
    const XyzMolecule w = molecule(water);
    CHECK(load_basis("sto-3g", w, "w.xyz").functions == 7);
    CHECK(load_basis("cc-pVDZ", w, "w.xyz").functions == 24);
    CHECK(load_basis("def2-svp", w, "w.xyz").functions == 24);
    try {
        load_basis("cc-pvqz", w, "w.xyz");
        FAIL("no error");
    } catch (const InvalidInput& e) {
        CHECK(e.message() == "--basis: 'cc-pvqz' is not a basis set in " + basis_directory() +
                                 " (known: cc-pvdz, def2-svp, sto-3g)");
    }
    try {
        load_basis("cc-pvdz", molecule("2\nKCl\nK 0 0 0\nCl 0 0 2.7\n"), "kcl.xyz");
        FAIL("no error");
    } catch (const InvalidInput& e) {
        CHECK(e.message() == "kcl.xyz:3: basis cc-pvdz has no functions for element K");
    }
}

TEST_CASE("integral tiles: B± is symmetric, tile (k, t) is tile (t, k) transposed", "[abcd][chem]") {
    const XyzMolecule m = molecule("5\nmethane\nC 0 0 0\nH 0.629118 0.629118 0.629118\nH -0.629118 -0.629118 "
                                   "0.629118\nH -0.629118 0.629118 -0.629118\nH 0.629118 -0.629118 -0.629118\n");
    LadderOptions o;
    o.molecule_name = "methane.xyz";
    o.basis = "cc-pvdz";
    o.cluster_size = 8;  // several clusters: tiles of several atoms and shells
    LadderProblem lp = make_ladder_problem(m, PairRows{2}, o);
    REQUIRE(lp.clusters->functions.count() > 1);
    // B±(λσ, μν) = ((λμ|σν) ± (λν|σμ)) / 2 = B±(μν, λσ) by (λμ|σν) = (μλ|νσ): for each sign an
    // off-diagonal pair tile (c < d) against a diagonal one (c = d, entries λ <= σ or λ < σ).
    const Tiling& kt = lp.problem.k_tiling;
    for (int sign : {1, -1}) {
        size_type k = kt.count(), t = kt.count();
        for (size_type x = 0; x < kt.count(); ++x) {
            const AoPairTile& p = lp.pairs->tiles[x];
            if (p.sign != sign) continue;
            if (p.c < p.d && k == kt.count()) k = x;
            if (p.c == p.d && t == kt.count()) t = x;
        }
        REQUIRE(k < kt.count());
        REQUIRE(t < kt.count());
        std::vector<double> x(static_cast<std::size_t>(kt.size(k) * kt.size(t))), y(x.size());
        lp.tiles->fill(Operand::b, k, t, x.data());
        lp.tiles->fill(Operand::b, t, k, y.data());
        double worst = 0, largest = 0;
        for (size_type r = 0; r < kt.size(k); ++r)
            for (size_type c = 0; c < kt.size(t); ++c) {
                const double xv = x[r + c * kt.size(k)], yv = y[c + r * kt.size(t)];
                worst = std::max(worst, std::abs(xv - yv));
                largest = std::max(largest, std::abs(xv));
            }
        CHECK(largest > 1e-4);
        CHECK(worst <= 1e-14 * largest + 1e-16);
    }
    // The pass that made (k, t) of one sign made the other sign's tile too: taken, not made again,
    // and the same numbers as a tile made alone (a new problem: nothing made yet).
    lp = make_ladder_problem(m, PairRows{2}, o);
    const auto before = lp.tiles->counts();
    REQUIRE(before.made == 0);
    const size_type k = 0, t = 2;  // (0, 0, +) and (0, 1, +)
    const auto ok = lp.pairs->partner(k), ot = lp.pairs->partner(t);
    REQUIRE(ok == 1);
    REQUIRE(ot == 3);
    std::vector<double> plus(static_cast<std::size_t>(kt.size(k) * kt.size(t))),
        minus(static_cast<std::size_t>(kt.size(1) * kt.size(3))), alone(minus.size());
    lp.tiles->fill(Operand::b, k, t, plus.data());
    lp.tiles->fill(Operand::b, 1, 3, minus.data());
    CHECK(lp.tiles->counts().made == before.made + 1);
    CHECK(lp.tiles->counts().from_spare == before.from_spare + 1);
    lp.tiles->fill(Operand::b, 1, 3, alone.data());  // made before: a libint2 pass again
    CHECK(lp.tiles->counts().made == before.made + 2);
    CHECK(minus == alone);
}

TEST_CASE("ladder: bad amplitudes against the basis", "[abcd][chem]") {
    const XyzMolecule w = molecule(water);
    LadderOptions o;
    o.molecule_name = "w.xyz";
    o.basis = "sto-3g";
    LadderProblem lp = make_ladder_problem(w, PairRows{5}, o);
    Amplitudes amp;
    amp.nocc = 5;
    amp.nvir = 2;
    amp.nbf = 8;
    amp.t2.assign(100, 0.0);
    amp.c_vir.assign(16, 0.0);
    try {
        set_amplitudes(lp, amp, "amp.h5");
        FAIL("no error");
    } catch (const InvalidInput& e) {
        CHECK(e.message() == "amp.h5:/c_vir: 8 rows, but basis sto-3g has 7 functions on this molecule");
    }
    o.threshold = -1;
    CHECK_THROWS_WITH(make_ladder_problem(w, PairRows{5}, o), Catch::Contains("--threshold: must be in [0, 1)"));
}

#endif
