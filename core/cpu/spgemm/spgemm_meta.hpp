// The SpGEMM meta-algorithm (KKSPGEMM of Deveci et al. 2018, §3.3): picks the accumulator of
// each phase from the column count and the estimated maximum row size.
#pragma once

#include <string>

#include "core/kernels/spgemm.hpp"

namespace tessel::cpu {

/// What one phase sees: its column count (k, or ceil(k/32) for a compressed symbolic phase),
/// its estimated maximum row size (MAXRF bounded by the column count) and the bytes of a
/// dense entry and of a hash slot.
struct SpgemmPhaseShape {
    size_type cols = 0;
    size_type max_row_estimate = 0;
    size_type dense_entry_bytes = 0;
    size_type hash_slot_bytes = 0;
};

struct SpgemmPhaseChoice {
    SpgemmAccumulator accumulator = SpgemmAccumulator::hash;
    std::string reason;
};

/// Dense when the column count is at most options.dense_column_limit (the paper's k < 250,000
/// on KNL, 2^21 by default here), or when the hash accumulator for the longest estimated row
/// would take at least the memory of a dense one (rows close to k long, as in squaring R-MAT
/// graphs); hash otherwise. options.accumulator, when dense or hash, is obeyed instead.
SpgemmPhaseChoice choose_spgemm_accumulator(const SpgemmPhaseShape& shape,
                                            const SpgemmOptions& options);

/// Smallest power of two >= max(n, 1).
inline size_type next_pow2(size_type n) {
    size_type p = 1;
    while (p < n) p <<= 1;
    return p;
}

}  // namespace tessel::cpu
