// Checks on a matrix a benchmark read from a file, before any kernel or peer library sees it.
#pragma once

#include <string>

#include "core/error.hpp"
#include "core/formats/csr.hpp"

namespace tessel::bench {

/// Throws InvalidInput "PATH: the matrix is 0 x 0: nothing to multiply" when `a` has no rows
/// or no columns (the peers answered such a file with a raw error code).
template <typename ValueType, typename IndexType>
void require_nonempty(const Csr<ValueType, IndexType>& a, const std::string& path) {
    if (a.rows() == 0 || a.cols() == 0)
        TESSEL_INVALID_INPUT(path, 0, "the matrix is " + std::to_string(a.rows()) + " x " + std::to_string(a.cols()) +
                                          ": nothing to multiply");
}

}  // namespace tessel::bench
