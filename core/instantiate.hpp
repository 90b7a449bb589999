// Explicit instantiation for every supported {value} x {index} type pair.
#pragma once

#include <cstdint>

#define TESSEL_FOR_EACH_VALUE_AND_INDEX(MACRO) \
    MACRO(float, std::int32_t)                 \
    MACRO(float, std::int64_t)                 \
    MACRO(double, std::int32_t)                \
    MACRO(double, std::int64_t)
