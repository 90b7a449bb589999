// DivideBy (core/formats/divide_by.hpp) against the division it replaces: powers of two, the
// reciprocal below 2^32 (every divisor up to 5000 and large ones, at the edges where a
// reciprocal rounds), the plain division above.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "core/formats/divide_by.hpp"

using namespace tessel;

TEST_CASE("DivideBy equals the division for every divisor and dividend kind", "[formats]") {
    std::mt19937_64 rng(11);
    std::vector<size_type> divisors;
    for (size_type d = 1; d <= 5000; ++d) divisors.push_back(d);
    for (size_type d : {size_type(65535), size_type(65537), size_type(1) << 31, size_type(UINT32_MAX),
                        size_type(UINT32_MAX) + 1, size_type(1) << 40, size_type(3) << 40})
        divisors.push_back(d);
    const size_type u32 = size_type(UINT32_MAX);
    for (const size_type d : divisors) {
        const DivideBy divide(d);
        // The edges: multiples of d and their neighbours, the top of the 32-bit range and past it.
        std::vector<size_type> xs = {0, 1, d - 1, d, d + 1, u32 - 1, u32, u32 + 1, u32 / d * d, u32 / d * d - 1,
                                     size_type(1) << 40, (size_type(1) << 50) + 12345};
        for (int i = 0; i < 64; ++i) xs.push_back(static_cast<size_type>(rng() % std::uint64_t(u32 + 1)));
        for (int i = 0; i < 8; ++i) xs.push_back(static_cast<size_type>(rng() >> 2));
        for (const size_type x : xs) {
            if (x < 0) continue;
            if (divide(x) != x / d) FAIL("x " << x << " / d " << d << ": " << divide(x) << " != " << x / d);
        }
    }
    SUCCEED();
}
