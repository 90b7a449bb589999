// The generic level's half widening (no F16C) against core's half_to_float on every one of the
// 65536 bit patterns: normals, subnormals, zeros, infinities, NaNs.
// Compiled with TESSEL_CPU_ISA_LEVEL=1 (tests/core/CMakeLists.txt): the generic kernel region.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "core/cpu/tiled_ell_block.hpp"
#include "core/formats/half.hpp"

using namespace tessel;

TEST_CASE("generic half widening equals half_to_float on every bit pattern", "[cpu][half]") {
    size_type bad = 0;
    for (std::uint32_t h = 0; h <= 0xffffu; ++h) {
        const float want = half_to_float(std::uint16_t(h));
        const float got = cpu::isa_generic::detail::widen_half_bits(std::uint16_t(h));
        std::uint32_t a, b;
        std::memcpy(&a, &want, 4);
        std::memcpy(&b, &got, 4);
        if (std::isnan(want) ? !std::isnan(got) : a != b) ++bad;
    }
    CHECK(bad == 0);
    alignas(64) std::uint16_t halves[32];
    alignas(64) float widened[32];
    for (int i = 0; i < 32; ++i) halves[i] = std::uint16_t(0x3c00 + 37 * i);  // 1.0 and up
    cpu::isa_generic::detail::widen_halves(halves, widened, 32);
    for (int i = 0; i < 32; ++i) CHECK(widened[i] == half_to_float(halves[i]));
}
