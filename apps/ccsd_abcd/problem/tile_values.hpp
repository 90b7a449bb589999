// The seeded function that gives every element of A and B its value from its coordinates, so
// that any rank can make any tile on demand and the dense reference sees the same numbers.
#pragma once

#include <cstdint>

#include "apps/ccsd_abcd/problem/element_hash.hpp"
#include "core/types.hpp"

namespace tessel::abcd {

/// Which operand of C = A·B an element belongs to (part of the hash).
enum class Operand : std::uint64_t { a = 1, b = 2 };

namespace detail {
// The hash is shared with the device (element_hash.hpp: the cuda executor makes B there).
using element_hash::col_step;
using element_hash::fmix64;
using element_hash::row_step;
inline std::uint64_t operand_base(std::uint64_t seed, Operand which) {
    return element_hash::operand_base(seed, static_cast<std::uint64_t>(which));
}
}  // namespace detail

/// Element (r, c) of operand `which` (global element coordinates):
/// v = 2·u - 1 with u = fmix64(base(seed, which) + r·s_r + c·s_c) / 2^64 in [0, 1), so v is
/// uniform in [-1, 1) and independent of the tiling.
inline double element_value(std::uint64_t seed, Operand which, size_type r, size_type c) {
    const std::uint64_t x = detail::operand_base(seed, which) +
                            static_cast<std::uint64_t>(r) * detail::row_step +
                            static_cast<std::uint64_t>(c) * detail::col_step;
    return element_hash::unit_value(x);
}

/// Fills the tile of rows [r0, r0 + m) and columns [c0, c0 + n) of operand `which`,
/// column-major (entry (r, c) of the tile at out[r + c·m]), with element_value. The inner
/// loop is a stride of adds and multiplies that the compiler vectorises.
template <typename ValueType>
void fill_tile(std::uint64_t seed, Operand which, size_type r0, size_type m, size_type c0,
               size_type n, ValueType* out) {
    const std::uint64_t base = detail::operand_base(seed, which);
    for (size_type c = 0; c < n; ++c) {
        const std::uint64_t col_base = base + static_cast<std::uint64_t>(r0) * detail::row_step +
                                       static_cast<std::uint64_t>(c0 + c) * detail::col_step;
        ValueType* column = out + c * m;
        for (size_type r = 0; r < m; ++r) {
            column[r] = static_cast<ValueType>(element_hash::unit_value(col_base + static_cast<std::uint64_t>(r) * detail::row_step));
        }
    }
}

}  // namespace tessel::abcd
