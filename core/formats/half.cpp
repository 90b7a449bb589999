// Half conversions with the compiler's _Float16 (F16C / AVX-512 FP16 instructions where the
// target has them): rounding and subnormals as IEEE 754 says.
#include "core/formats/half.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace tessel {

std::uint16_t float_to_half(float x) {
    const _Float16 h = static_cast<_Float16>(x);
    std::uint16_t bits;
    std::memcpy(&bits, &h, sizeof bits);
    return bits;
}

float half_to_float(std::uint16_t bits) {
    _Float16 h;
    std::memcpy(&h, &bits, sizeof h);
    return static_cast<float>(h);
}

template <typename V>
void to_half(const V* src, size_type n, std::uint16_t* dst, const char* what) {
    size_type first_bad = n;
#pragma omp parallel for reduction(min : first_bad)
    for (size_type i = 0; i < n; ++i) {
        if (!(std::abs(double(src[i])) <= half_max)) first_bad = std::min(first_bad, i);
        dst[i] = float_to_half(static_cast<float>(src[i]));
    }
    if (first_bad < n)
        TESSEL_INVALID_INPUT(what, first_bad,
                             "value " + std::to_string(double(src[first_bad])) +
                                 " does not fit IEEE half precision (finite, magnitude <= 65504)");
}

template void to_half(const float*, size_type, std::uint16_t*, const char*);
template void to_half(const double*, size_type, std::uint16_t*, const char*);

}  // namespace tessel
