// Summaries of repeated measurements.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace tessel {

/// The median (the mean of the two middle values for an even count); NaN when there are none.
inline double median(std::vector<double> values) {
    if (values.empty()) return NAN;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace tessel
