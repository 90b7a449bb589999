// Division by a divisor fixed for a whole pass: a shift when it is a power of two, else a
// multiply by its 64-bit reciprocal for dividends below 2^32 (exact: Lemire, Kaser and Kurz,
// "Faster remainder by direct computation", 2019), since a division per entry was a visible
// share of the tiled ELL builds and the transpose (xct's operators: a hundred million entries,
// each divided twice, by stages of 768 entries on cuda).
#pragma once

#include <cstdint>

#include "core/types.hpp"

namespace tessel {

class DivideBy {
public:
    /// divisor >= 1.
    explicit DivideBy(size_type divisor) : divisor_(divisor) {
        while ((size_type(1) << shift_) < divisor) ++shift_;
        if ((size_type(1) << shift_) != divisor) {
            shift_ = -1;
            if (divisor <= size_type(UINT32_MAX)) reciprocal_ = UINT64_MAX / std::uint64_t(divisor) + 1;
        }
    }
    /// x / divisor for x >= 0.
    size_type operator()(size_type x) const {
        if (shift_ >= 0) return x >> shift_;
        if (reciprocal_ != 0 && x <= size_type(UINT32_MAX))
            return static_cast<size_type>((static_cast<unsigned __int128>(reciprocal_) * std::uint64_t(x)) >> 64);
        return x / divisor_;
    }

private:
    size_type divisor_;
    int shift_ = 0;
    std::uint64_t reciprocal_ = 0;  // 0: divide
};

}  // namespace tessel
