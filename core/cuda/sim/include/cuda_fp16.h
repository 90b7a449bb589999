// tessel's CUDA simulator: IEEE half precision as the kernels use it (__half, conversions).
#pragma once

#include <cstdint>
#include <cstring>

/// 16 bits of IEEE binary16, converted with the host compiler's _Float16.
struct __half {
    std::uint16_t bits = 0;
};

inline float __half2float(__half h) {
    _Float16 f;
    std::memcpy(&f, &h.bits, sizeof f);
    return static_cast<float>(f);
}
inline __half __float2half(float x) {
    const _Float16 f = static_cast<_Float16>(x);  // round to nearest even, as __float2half
    __half h;
    std::memcpy(&h.bits, &f, sizeof f);
    return h;
}
inline __half __ushort_as_half(unsigned short bits) { return __half{bits}; }
inline unsigned short __half_as_ushort(__half h) { return h.bits; }
