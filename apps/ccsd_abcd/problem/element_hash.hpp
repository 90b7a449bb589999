// The hash behind every generated value of A and B (tile_values.hpp), written once for the host
// and the device: the cuda executor makes B's tiles on the GPU with these same functions
// (executor/b_tile_kernels.cu), so both give the same bits. Counter-based: an element's value
// depends only on the seed, the operand and its global coordinates. Plain C++ without std::
// so that device code can include it.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace tessel::abcd::element_hash {

/// murmur3's 64-bit finaliser: a bijection that mixes every input bit into every output bit.
TESSEL_HOST_DEVICE inline std::uint64_t fmix64(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
inline constexpr std::uint64_t row_step = 0x9e3779b97f4a7c15ULL;  // odd: rows never collide
inline constexpr std::uint64_t col_step = 0xd6e8feb86659fd93ULL;

/// The hash of (seed, operand): `which` is Operand's value (1 for A, 2 for B).
TESSEL_HOST_DEVICE inline std::uint64_t operand_base(std::uint64_t seed, std::uint64_t which) {
    return fmix64(seed * 0x2545f4914f6cdd1dULL + which);
}

/// 2·u - 1 with u = the top 53 bits of fmix64(x) / 2^53: uniform in [-1, 1). Every step is
/// exact in double (a 53-bit integer times a power of two, minus one), so host and device agree
/// to the bit whether or not the compiler fuses the multiply and the subtraction.
TESSEL_HOST_DEVICE inline double unit_value(std::uint64_t x) {
    return static_cast<double>(fmix64(x) >> 11) * 0x1.0p-52 - 1.0;
}

/// The value of element (r, c) of an operand whose base is `base` (operand_base).
TESSEL_HOST_DEVICE inline double element(std::uint64_t base, std::uint64_t r, std::uint64_t c) {
    return unit_value(base + r * row_step + c * col_step);
}

}  // namespace tessel::abcd::element_hash
