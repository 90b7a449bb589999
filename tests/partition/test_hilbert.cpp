// Hilbert curves: bijection, locality (consecutive positions are grid neighbours), two-level
// tile orders on padded and odd-sized grids.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>

#include "core/error.hpp"
#include "partition/hilbert.hpp"

using namespace tessel;
using namespace tessel::partition;

TEST_CASE("2-D Hilbert curve is a bijection whose steps are unit moves", "[hilbert]") {
    for (int bits = 0; bits <= 6; ++bits) {
        const std::uint64_t n = std::uint64_t{1} << (2 * bits);
        int not_inverse = 0, long_steps = 0;
        for (std::uint64_t d = 0; d < n; ++d) {
            const auto p = hilbert_point_2d(bits, d);
            if (hilbert_index_2d(bits, p[0], p[1]) != d) ++not_inverse;
            if (d + 1 < n) {
                const auto q = hilbert_point_2d(bits, d + 1);
                const int step = std::abs(int(p[0]) - int(q[0])) + std::abs(int(p[1]) - int(q[1]));
                if (step != 1) ++long_steps;
            }
        }
        CAPTURE(bits);
        CHECK(not_inverse == 0);
        CHECK(long_steps == 0);
    }
    // The curve starts at the origin and every point of the square is visited.
    std::set<std::pair<int, int>> seen;
    for (std::uint64_t d = 0; d < 64; ++d) {
        const auto p = hilbert_point_2d(3, d);
        seen.insert({int(p[0]), int(p[1])});
    }
    CHECK(seen.size() == 64);
    CHECK(hilbert_index_2d(3, 0, 0) == 0);
}

TEST_CASE("3-D Hilbert curve is a bijection whose steps are unit moves", "[hilbert]") {
    for (int bits = 0; bits <= 4; ++bits) {
        const std::uint64_t n = std::uint64_t{1} << (3 * bits);
        int not_inverse = 0, long_steps = 0;
        for (std::uint64_t d = 0; d < n; ++d) {
            const auto p = hilbert_point_3d(bits, d);
            if (hilbert_index_3d(bits, p[0], p[1], p[2]) != d) ++not_inverse;
            if (d + 1 < n) {
                const auto q = hilbert_point_3d(bits, d + 1);
                const int step = std::abs(int(p[0]) - int(q[0])) + std::abs(int(p[1]) - int(q[1])) +
                                 std::abs(int(p[2]) - int(q[2]));
                if (step != 1) ++long_steps;
            }
        }
        CAPTURE(bits);
        CHECK(not_inverse == 0);
        CHECK(long_steps == 0);
    }
}

TEST_CASE("two-level Hilbert orders are permutations with local steps", "[hilbert]") {
    SECTION("one tile covering a power-of-two square is the plain curve") {
        const auto order = hilbert_order_2d(8, 8, 8);
        REQUIRE(order.size() == 64);
        for (std::uint64_t d = 0; d < 64; ++d) {
            const auto p = hilbert_point_2d(3, d);
            CHECK(order[d] == size_type(p[1]) * 8 + p[0]);
        }
    }
    SECTION("odd sizes: padded tiles are skipped, every point appears once") {
        for (auto [nx, ny, tile] : {std::tuple{13, 7, 4}, {1, 1, 1}, {5, 3, 2}, {33, 17, 8}, {0, 4, 2}}) {
            const auto order = hilbert_order_2d(nx, ny, tile);
            CAPTURE(nx, ny, tile);
            CHECK(static_cast<size_type>(order.size()) == size_type(nx) * ny);
            CHECK(is_permutation(order));
        }
    }
    SECTION("inside a tile consecutive points are neighbours; between tiles they stay close") {
        const size_type nx = 64, ny = 64, tile = 8;
        const auto order = hilbert_order_2d(nx, ny, tile);
        size_type far_steps = 0;
        double total = 0;
        for (std::size_t e = 0; e + 1 < order.size(); ++e) {
            const size_type x0 = order[e] % nx, y0 = order[e] / nx;
            const size_type x1 = order[e + 1] % nx, y1 = order[e + 1] / nx;
            const size_type step = std::abs(x0 - x1) + std::abs(y0 - y1);
            total += double(step);
            if ((e + 1) % (tile * tile) != 0) {
                CHECK(step == 1);
            } else if (step > 2 * tile) {
                ++far_steps;
            }
        }
        CHECK(far_steps == 0);
        CHECK(total / double(order.size() - 1) < 1.5);
    }
    SECTION("3-D two-level order") {
        const auto order = hilbert_order_3d(6, 5, 4, 2);
        CHECK(order.size() == 120);
        CHECK(is_permutation(order));
        const auto cube = hilbert_order_3d(4, 4, 4, 4);
        for (std::uint64_t d = 0; d + 1 < 64; ++d) {
            const size_type a = cube[d], b = cube[d + 1];
            const size_type step = std::abs(a % 4 - b % 4) + std::abs(a / 4 % 4 - b / 4 % 4) +
                                   std::abs(a / 16 - b / 16);
            CHECK(step == 1);
        }
    }
    SECTION("tile sizes must be powers of two") {
        CHECK_THROWS_AS(hilbert_order_2d(8, 8, 3), InvalidInput);
        CHECK_THROWS_AS(hilbert_order_3d(8, 8, 8, 0), InvalidInput);
    }
}
