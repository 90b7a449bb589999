// The generators: synthetic tilings and densities (paper section 5.1), the molecule chain, and
// the seeded tile values.
#include <catch2/catch.hpp>

#include <set>

#include "apps/ccsd_abcd/problem/molecule_generator.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "apps/ccsd_abcd/problem/tile_values.hpp"
#include "core/error.hpp"

using namespace tessel;
using namespace tessel::abcd;

TEST_CASE("random tilings stay in [lo, hi] and cover the range", "[abcd]") {
    std::mt19937_64 rng(5);
    for (size_type extent : {1, 100, 511, 2000, 24000, 100003}) {
        const Tiling t = random_tiling(extent, 512, 2048, rng);
        CHECK(t.extent() == extent);
        if (extent >= 512) {
            CHECK(t.min_size() >= 512);
            CHECK(t.max_size() <= 2048);
        } else {
            CHECK(t.count() == 1);
        }
    }
    CHECK_THROWS_WITH(random_tiling(100, 0, 10, rng), Catch::Contains("--tile-min"));
    CHECK_THROWS_WITH(random_tiling(100, 20, 10, rng), Catch::Contains("--tile-max: 10 is below --tile-min 20"));
}

TEST_CASE("random shapes reach the density from above and keep every row and column", "[abcd]") {
    std::mt19937_64 rng(9);
    const Tiling rows = random_tiling(3000, 50, 200, rng), cols = random_tiling(5000, 50, 200, rng);
    for (double target : {1.0, 0.5, 0.3, 0.1, 0.02}) {
        const TileShape s = random_shape(rows, cols, target, rng);
        const double d = s.density(rows, cols);
        CHECK(d >= target);
        // Above the target by less than one of the largest tiles (unless rows/columns hold it up).
        if (target >= 0.1) CHECK(d <= target + 0.01);
        for (size_type i = 0; i < s.rows(); ++i) CHECK(s.row_nnz(i) >= 1);
        const TileShape t = s.transpose();
        for (size_type j = 0; j < t.rows(); ++j) CHECK(t.row_nnz(j) >= 1);
    }
    CHECK_THROWS_WITH(random_shape(rows, cols, 0.0, rng, "--density-b"), Catch::Contains("--density-b: 0 is outside (0, 1]"));
    CHECK_THROWS_WITH(random_shape(rows, cols, 1.5, rng, "--density-a"), Catch::Contains("--density-a: 1.5 is outside (0, 1]"));
    CHECK_THROWS_AS(random_shape(rows, cols, -0.2, rng), InvalidInput);
}

TEST_CASE("synthetic problems are square in B, seedable, and check their options", "[abcd]") {
    SyntheticOptions o;
    o.m = 700;
    o.n = 3000;
    o.tile_min = 100;
    o.tile_max = 400;
    o.density_a = 0.4;
    o.density_b = 0.2;
    o.seed = 4;
    const Problem p = synthetic_problem(o), q = synthetic_problem(o);
    CHECK(p.m() == 700);
    CHECK(p.k() == 3000);
    CHECK(p.n() == 3000);
    CHECK(p.k_tiling == p.n_tiling);
    CHECK(p.a_shape == q.a_shape);
    CHECK(p.b_shape == q.b_shape);
    CHECK(p.density_a() >= 0.4);
    CHECK(p.density_b() >= 0.2);
    o.seed = 5;
    CHECK_FALSE(synthetic_problem(o).b_shape == p.b_shape);
    o.density_b = 0;
    CHECK_THROWS_WITH(synthetic_problem(o), Catch::Contains("--density-b"));
    o.density_b = 0.2;
    o.tile_min = -3;
    CHECK_THROWS_WITH(synthetic_problem(o), Catch::Contains("--tile-min: tile sizes must be positive, not -3"));
    o.tile_min = 10;
    o.m = 0;
    CHECK_THROWS_WITH(synthetic_problem(o), Catch::Contains("--m: must be positive"));
}

TEST_CASE("the molecule chain has the paper's ranges and local shapes", "[abcd]") {
    MoleculeOptions o;
    o.length = 65;
    MoleculeSummary s;
    const Problem p = molecule_problem(o, &s);
    // C65H132 in def2-SVP: O = 196 (frozen core), U = 1570, as in the paper.
    CHECK(s.carbons == 65);
    CHECK(s.hydrogens == 132);
    CHECK(s.occupied == 196);
    CHECK(s.unoccupied == 1570);
    CHECK(p.k() == 1570 * 1570);
    CHECK(p.n() == p.k());
    CHECK(p.m() < 196 * 196);  // only nearby ij pairs kept
    // Quasi one-dimensional: T and V sparse (the paper: 9.8% and 2.4%).
    CHECK(p.density_a() < 0.2);
    CHECK(p.density_b() < 0.05);
    // Every tile of V is its own transpose's partner: V(cd, ab) ≠ 0 iff V(ab, cd) ≠ 0.
    const TileShape& v = p.b_shape;
    for (size_type r = 0; r < v.rows(); r += 97)
        for (size_type e = v.row_ptr()[r]; e < v.row_ptr()[r + 1]; ++e) CHECK(v.contains(v.col_idx()[e], r));
    o.length = 0;
    CHECK_THROWS_WITH(molecule_problem(o), Catch::Contains("--length"));
    o.length = 3;
    o.basis = "cc-pvdz";
    CHECK_THROWS_WITH(molecule_problem(o), Catch::Contains("--basis: 'cc-pvdz' is not svp or minimal"));
}

TEST_CASE("tile values depend on element coordinates only", "[abcd]") {
    std::vector<double> whole(6 * 4), left(6 * 2), right(6 * 2);
    fill_tile(7, Operand::b, 10, 6, 20, 4, whole.data());
    fill_tile(7, Operand::b, 10, 6, 20, 2, left.data());
    fill_tile(7, Operand::b, 10, 6, 22, 2, right.data());
    for (int c = 0; c < 2; ++c)
        for (int r = 0; r < 6; ++r) {
            CHECK(whole[c * 6 + r] == left[c * 6 + r]);
            CHECK(whole[(c + 2) * 6 + r] == right[c * 6 + r]);
            CHECK(whole[c * 6 + r] == element_value(7, Operand::b, 10 + r, 20 + c));
        }
    std::set<double> distinct(whole.begin(), whole.end());
    CHECK(distinct.size() == whole.size());
    for (double v : whole) {
        CHECK(v >= -1.0);
        CHECK(v < 1.0);
    }
    CHECK(element_value(7, Operand::a, 3, 4) != element_value(7, Operand::b, 3, 4));
    CHECK(element_value(7, Operand::a, 3, 4) != element_value(8, Operand::a, 3, 4));
}
