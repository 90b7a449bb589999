// Tilings and block-sparse shapes: construction, bad input, lookup, transpose, density.
#include <catch2/catch.hpp>

#include "apps/ccsd_abcd/problem/tile_shape.hpp"
#include "apps/ccsd_abcd/problem/tiling.hpp"
#include "core/error.hpp"

using namespace tessel;
using namespace tessel::abcd;

TEST_CASE("tiling offsets, lookup and description", "[abcd]") {
    const Tiling t = Tiling::from_sizes({3, 5, 2});
    CHECK(t.count() == 3);
    CHECK(t.extent() == 10);
    CHECK(t.offset(2) == 8);
    CHECK(t.tile_of(0) == 0);
    CHECK(t.tile_of(3) == 1);
    CHECK(t.tile_of(9) == 2);
    CHECK(t.min_size() == 2);
    CHECK(t.max_size() == 5);
    CHECK(t.describe() == "10 in 3 tiles of 2..5");
    const Tiling f = fused_tiling(Tiling::from_sizes({2, 3}), Tiling::from_sizes({4, 1}));
    CHECK(f.sizes() == std::vector<size_type>{8, 2, 12, 3});
}

TEST_CASE("tilings that are not positive or do not cover the range are refused", "[abcd]") {
    CHECK_THROWS_WITH(Tiling::from_sizes({3, 0, 2}, "rows"), Catch::Contains("tile 1 has size 0"));
    CHECK_THROWS_WITH(Tiling::from_sizes({3, -4}, "rows"), Catch::Contains("tile 1 has size -4"));
    CHECK_THROWS_AS(Tiling::from_sizes({3, -4}, "rows"), InvalidInput);
    CHECK_THROWS_WITH(Tiling::covering({3, 5}, 10, "x.h5:/a/row_tiling"),
                      Catch::Contains("x.h5:/a/row_tiling: tiles cover 8 of 10 indices"));
    CHECK_THROWS_WITH(Tiling::from_boundaries({0, 4, 4, 9}, 9, "b"), Catch::Contains("do not increase"));
    CHECK_THROWS_WITH(Tiling::from_boundaries({0, 4, 8}, 9, "b"), Catch::Contains("not at the extent 9"));
    CHECK(Tiling::from_boundaries({0, 4, 9}, 9, "b").sizes() == std::vector<size_type>{4, 5});
}

TEST_CASE("shapes: sorted positions, find, transpose, density by area", "[abcd]") {
    const TileShape s = TileShape::from_pairs(3, 4, {{2, 1}, {0, 3}, {0, 0}, {1, 2}, {2, 3}});
    CHECK(s.nnz() == 5);
    CHECK(s.find(0, 0) == 0);
    CHECK(s.find(0, 3) == 1);
    CHECK(s.find(1, 2) == 2);
    CHECK(s.find(2, 1) == 3);
    CHECK(s.find(1, 1) == -1);
    CHECK(s.row_of(3) == 2);
    std::vector<size_type> pos;
    const TileShape t = s.transpose(&pos);
    CHECK(t.rows() == 4);
    CHECK(t.find(3, 0) >= 0);
    CHECK(pos[t.find(3, 2)] == s.find(2, 3));
    CHECK(t.transpose() == s);
    const Tiling r = Tiling::from_sizes({1, 2, 3}), c = Tiling::from_sizes({1, 1, 1, 1});
    // area: (0,0) 1 + (0,3) 1 + (1,2) 2 + (2,1) 3 + (2,3) 3 = 10 of 24
    CHECK(s.area(r, c) == 10.0);
    CHECK(s.density(r, c) == Approx(10.0 / 24.0));
    CHECK_THROWS_WITH(TileShape::from_pairs(2, 2, {{0, 0}, {0, 0}}, "V"), Catch::Contains("listed twice"));
    CHECK_THROWS_WITH(TileShape::from_pairs(2, 2, {{2, 0}}, "V"), Catch::Contains("outside the 2 x 2 grid"));
}
