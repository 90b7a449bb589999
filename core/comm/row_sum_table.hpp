// A list of row additions out[target[e]] += in[source[e]] regrouped by target, so that a GPU
// can give each target row to its own threads (no atomics) and still add in the list's order:
// the sums then equal, bit for bit, those of the sequential loop on the host.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace tessel::comm {

/// Target rows that receive at least one source, ascending; the sources of rows[t] are
/// sources[ptr[t] .. ptr[t+1]) in their original order.
struct RowSumTable {
    std::vector<size_type> rows;
    std::vector<size_type> ptr{0};
    std::vector<size_type> sources;

    size_type targets() const { return static_cast<size_type>(rows.size()); }
    size_type entries() const { return static_cast<size_type>(sources.size()); }
};

/// Groups the additions out[target[e]] += in[source[e]], e = 0, 1, ..., by target (a stable
/// counting sort). `source` empty means source[e] = e (rows of a packed receive buffer).
/// Throws DimensionMismatch when the lists differ in length or a target is outside
/// [0, target_rows).
RowSumTable group_by_target(size_type target_rows, const std::vector<size_type>& target,
                            const std::vector<size_type>& source = {});

}  // namespace tessel::comm
