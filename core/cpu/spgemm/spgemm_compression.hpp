// Compression of B's rows into 32-column bit sets for the symbolic phase of SpGEMM (Deveci et
// al. 2018, §3.2): a row's columns become (set index, 32-bit mask) pairs, so the symbolic
// phase inserts sets with a bitwise OR instead of single columns.
#pragma once

#include <cstdint>
#include <vector>

#include "core/formats/csr.hpp"

namespace tessel::cpu {

/// B's rows as bit sets: row j holds pairs (set[e], bits[e]) for e in row_ptr[j] ..
/// row_ptr[j+1]-1; bit b of bits[e] stands for column 32·set[e] + b. Sets are ascending.
template <typename IndexType>
struct BitsetRows {
    size_type rows = 0;
    size_type sets = 0;  ///< ceil(cols / 32)
    std::vector<size_type> row_ptr{0};
    std::vector<IndexType> set;
    std::vector<std::uint32_t> bits;
};

/// First phase of the compression: the number of distinct 32-column sets in every row of B
/// (what the symbolic phase would insert per row of B after compression). Rows need not be
/// sorted.
template <typename ValueType, typename IndexType>
std::vector<size_type> bitset_row_lengths(const Csr<ValueType, IndexType>& b);

/// Second phase: B packed into bit sets, given bitset_row_lengths(b).
template <typename ValueType, typename IndexType>
BitsetRows<IndexType> compress_rows(const Csr<ValueType, IndexType>& b,
                                    const std::vector<size_type>& lengths);

/// The 0.85 rule: compression pays when the symbolic phase's insertions with it are at most
/// `threshold` times those without (it removes more than 15% of the work by default). The
/// compression is counted as work too, two passes over B (`b_nnz` entries each): on a
/// CPU a product like A·A of a 2-D stencil, whose bit sets halve the insertions, does not
/// win back the compression (measured in bench/spgemm), while wide bands and dense blocks do.
inline bool compression_pays(size_type flops, size_type compressed_flops, size_type b_nnz,
                             double threshold) {
    return flops > 0 && double(compressed_flops + 2 * b_nnz) <= threshold * double(flops);
}

}  // namespace tessel::cpu
