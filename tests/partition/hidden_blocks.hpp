// Test matrices with hidden block structure, shared by the k-means and METIS reordering tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "core/formats/coo.hpp"
#include "core/formats/csr.hpp"
#include "partition/permutation.hpp"

namespace tessel::partition::test {

// groups x rows_per_group rows; the rows of a group draw `per_row` columns from the group's own
// random set of `group_cols` columns; rows are then shuffled so the structure is hidden.
inline Csr<double, std::int32_t> hidden_blocks(size_type groups, size_type rows_per_group,
                                               size_type group_cols, size_type per_row, size_type cols,
                                               std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Coo<double, std::int32_t> coo;
    coo.rows = groups * rows_per_group;
    coo.cols = cols;
    const auto shuffled = random_permutation(coo.rows, seed + 1);
    for (size_type g = 0; g < groups; ++g) {
        std::vector<std::int32_t> pool(group_cols);
        for (auto& c : pool) c = std::uniform_int_distribution<std::int32_t>(0, cols - 1)(rng);
        for (size_type r = 0; r < rows_per_group; ++r) {
            std::vector<std::int32_t> picked = pool;
            std::shuffle(picked.begin(), picked.end(), rng);
            picked.resize(per_row);
            for (auto c : picked) {
                coo.row.push_back(static_cast<std::int32_t>(shuffled[g * rows_per_group + r]));
                coo.col.push_back(c);
                coo.values.push_back(1.0);
            }
        }
    }
    return csr_from_coo(coo);
}

}  // namespace tessel::partition::test
