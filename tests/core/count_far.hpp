// Entries of a product that differ from the expected one beyond a tolerance for the value type
// (a NaN counts as far): the comparison the kernel tests share.
#pragma once

#include <cmath>
#include <type_traits>

#include "core/dense.hpp"

namespace tessel::test {

template <typename V>
size_type count_far(const DenseMatrix<V>& got, const DenseMatrix<V>& want) {
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-12;
    size_type bad = 0;
    for (size_type i = 0; i < want.rows(); ++i)
        for (size_type j = 0; j < want.cols(); ++j)
            if (!(std::abs(double(got(i, j)) - double(want(i, j))) <= tol * (1.0 + std::abs(double(want(i, j))))))
                ++bad;
    return bad;
}

}  // namespace tessel::test
