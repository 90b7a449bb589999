// The ladder term's pair symmetry: rows i <= j only when t2[i,j,c,d] = t2[j,i,d,c], the note
// when it does not hold, and R through the i <= j rows against R through every pair.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <sstream>

#include "apps/ccsd_abcd/integrals/pair_rows.hpp"
#include "core/error.hpp"

#ifdef TESSEL_ABCD_HAVE_LIBINT2
#include "apps/ccsd_abcd/integrals/ladder.hpp"
#endif

using namespace tessel;
using namespace tessel::abcd;

namespace {

// t2 of nocc = 2, nvir = 1 from its four values t[i][j].
Amplitudes two_pairs(double t00, double t01, double t10, double t11) {
    Amplitudes a;
    a.nocc = 2;
    a.nvir = 1;
    a.nbf = 1;
    a.t2 = {t00, t01, t10, t11};
    a.c_vir = {1.0};
    return a;
}

}  // namespace

TEST_CASE("pair rows: i <= j in order, tiles of about the target", "[abcd][chem]") {
    const PairRows sym{3, true}, all{3, false};
    using P = std::pair<size_type, size_type>;
    CHECK(sym.count() == 6);
    CHECK(sym.pairs() == std::vector<P>{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}});
    CHECK(all.count() == 9);
    CHECK(all.pairs()[5] == P{1, 2});
    CHECK(sym.tiling(4).sizes() == std::vector<size_type>{3, 3});
    CHECK(PairRows{25, true}.tiling(256).sizes() == std::vector<size_type>{162, 163});
    CHECK(sym.tiling(100).count() == 1);
}

TEST_CASE("pair rows: the symmetry of t2 decides, with a note when it does not hold", "[abcd][chem]") {
    std::string note = "stale";
    CHECK(choose_pair_rows(two_pairs(1, 0.5, 0.5, 2), true, &note).symmetric);
    CHECK(note.empty());
    CHECK(pair_asymmetry(two_pairs(1, 0.5, 0.5 + 1e-14, 2)) <= pair_symmetry_tolerance);
    CHECK(choose_pair_rows(two_pairs(1, 0.5, 0.5 + 1e-14, 2), true, &note).symmetric);

    const PairRows rows = choose_pair_rows(two_pairs(0, 1, 0.5, 0), true, &note);
    CHECK_FALSE(rows.symmetric);
    CHECK(rows.count() == 4);
    CHECK(note == "t2 is not symmetric (|t2[i,j,c,d] - t2[j,i,d,c]| up to 5.0e-01 of max |t2|, above 1e-12): all 4 "
                  "pairs ij are contracted, not the 3 with i <= j");
    // Not allowed: every pair, no note.
    CHECK_FALSE(choose_pair_rows(two_pairs(1, 0.5, 0.5, 2), false, &note).symmetric);
    CHECK(note.empty());
    CHECK(pair_asymmetry(two_pairs(0, 0, 0, 0)) == 0.0);
}

#ifdef TESSEL_ABCD_HAVE_LIBINT2

namespace {

const char* water = "3\nwater\nO 0 0 0.1173\nH 0 0.7572 -0.4692\nH 0 -0.7572 -0.4692\n";

// Water in cc-pVDZ (24 functions) with 5 occupied and 6 made-up virtual orbitals: any c_vir
// and t2 exercise the algebra (R is linear in t2).
Amplitudes water_amplitudes(bool symmetric, std::uint64_t seed) {
    Amplitudes a;
    a.nocc = 5;
    a.nvir = 6;
    a.nbf = 24;
    a.order = AoOrder::psi4;
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    a.c_vir.resize(static_cast<std::size_t>(a.nbf * a.nvir));
    for (auto& x : a.c_vir) x = u(gen);
    const size_type no = a.nocc, nv = a.nvir;
    a.t2.resize(static_cast<std::size_t>(no * no * nv * nv));
    for (auto& x : a.t2) x = 0.01 * u(gen);
    if (symmetric)
        for (size_type i = 0; i < no; ++i)
            for (size_type j = 0; j < i; ++j)
                for (size_type c = 0; c < nv; ++c)
                    for (size_type d = 0; d < nv; ++d)
                        a.t2[((i * no + j) * nv + c) * nv + d] = a.t2[((j * no + i) * nv + d) * nv + c];
    return a;
}

XyzMolecule water_molecule() {
    std::istringstream in(water);
    return parse_xyz(in, "w.xyz");
}

LadderOptions water_options(bool all_pairs) {
    LadderOptions o;
    o.molecule_name = "w.xyz";
    o.basis = "cc-pvdz";
    o.cluster_size = 4;  // several clusters: diagonal and off-diagonal cluster pairs
    o.pair_rows = 7;     // several tiles of rows
    o.all_pairs = all_pairs;
    return o;
}

double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
    REQUIRE(x.size() == y.size());
    double worst = 0, largest = 0;
    for (std::size_t e = 0; e < x.size(); ++e) {
        worst = std::max(worst, std::abs(x[e] - y[e]));
        largest = std::max(largest, std::abs(y[e]));
    }
    REQUIRE(largest > 0);
    return worst / largest;
}

}  // namespace

TEST_CASE("ladder: R through the pairs i <= j equals R through every pair", "[abcd][chem]") {
    const XyzMolecule w = water_molecule();
    const Amplitudes amp = water_amplitudes(true, 3);
    const auto half = evaluate_ladder(w, amp, water_options(false), Backend::cpu);
    const auto full = evaluate_ladder(w, amp, water_options(true), Backend::cpu);
    CHECK(relative_difference(half, full) <= 1e-13);
}

TEST_CASE("ladder: t2 without the pair symmetry runs on every pair, and agrees with a symmetric t2", "[abcd][chem]") {
    const XyzMolecule w = water_molecule();
    const Amplitudes t = water_amplitudes(false, 4);
    std::string note;
    REQUIRE_FALSE(choose_pair_rows(t, true, &note).symmetric);
    const auto r = evaluate_ladder(w, t, water_options(false), Backend::cpu);
    // R is linear in t2 and swapping (i,c) with (j,d) in t2 swaps (i,a) with (j,b) in R:
    // R(t + Pt)[i,j,a,b] = R(t)[i,j,a,b] + R(t)[j,i,b,a], and t + Pt is symmetric (pairs i <= j).
    Amplitudes s = t;
    const size_type no = t.nocc, nv = t.nvir;
    auto at = [&](size_type i, size_type j, size_type c, size_type d) {
        return static_cast<std::size_t>(((i * no + j) * nv + c) * nv + d);
    };
    std::vector<double> expected(r.size());
    for (size_type i = 0; i < no; ++i)
        for (size_type j = 0; j < no; ++j)
            for (size_type c = 0; c < nv; ++c)
                for (size_type d = 0; d < nv; ++d) {
                    s.t2[at(i, j, c, d)] = t.t2[at(i, j, c, d)] + t.t2[at(j, i, d, c)];
                    expected[at(i, j, c, d)] = r[at(i, j, c, d)] + r[at(j, i, d, c)];
                }
    REQUIRE(choose_pair_rows(s, true).symmetric);
    CHECK(relative_difference(evaluate_ladder(w, s, water_options(false), Backend::cpu), expected) <= 1e-13);
}

TEST_CASE("ladder: a problem made for pairs i <= j refuses an asymmetric t2", "[abcd][chem]") {
    LadderProblem lp = make_ladder_problem(water_molecule(), PairRows{5, true}, water_options(false));
    try {
        set_amplitudes(lp, water_amplitudes(false, 5), "amp.h5");
        FAIL("no error");
    } catch (const InvalidInput& e) {
        CHECK_THAT(e.message(), Catch::Matches("amp\\.h5:/t2: the problem was made for pairs i <= j, but "
                                               "t2\\[i,j,c,d\\] - t2\\[j,i,d,c\\] is up to [0-9.]+e[-+][0-9]+ of max "
                                               "\\|t2\\| \\(at most 1e-12\\)"));
    }
}

#endif
