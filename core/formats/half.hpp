// IEEE 754 half precision (binary16) as stored bits: the value type of mixed-precision
// operators (values in 16 bits, products and sums in the vector's type).
#pragma once

#include <cstdint>

#include "core/types.hpp"

namespace tessel {

/// Largest finite half: values of greater magnitude do not fit.
inline constexpr double half_max = 65504.0;

/// The half nearest to `x` (round to nearest even; subnormals kept; beyond half_max: infinity).
std::uint16_t float_to_half(float x);

/// The exact float of a half.
float half_to_float(std::uint16_t h);

/// dst[i] = float_to_half(src[i]); throws InvalidInput naming `what` and the first index whose
/// value is not finite or whose magnitude exceeds half_max. Parallel.
template <typename ValueType>
void to_half(const ValueType* src, size_type n, std::uint16_t* dst, const char* what);

}  // namespace tessel
