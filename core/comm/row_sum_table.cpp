// Stable counting sort of row additions by their target row.
#include "core/comm/row_sum_table.hpp"

#include <string>

#include "core/error.hpp"

namespace tessel::comm {

RowSumTable group_by_target(size_type target_rows, const std::vector<size_type>& target,
                            const std::vector<size_type>& source) {
    TESSEL_ENSURE_DIMS(source.empty() || source.size() == target.size(),
                       "row sums: " + std::to_string(target.size()) + " targets, " +
                           std::to_string(source.size()) + " sources");
    std::vector<size_type> count(static_cast<std::size_t>(target_rows) + 1, 0);
    for (size_type t : target) {
        TESSEL_ENSURE_DIMS(t >= 0 && t < target_rows, "row sums: target row " + std::to_string(t) +
                                                          " outside 0.." + std::to_string(target_rows));
        ++count[static_cast<std::size_t>(t) + 1];
    }
    RowSumTable table;
    std::vector<size_type> slot(static_cast<std::size_t>(target_rows), -1);
    for (size_type r = 0; r < target_rows; ++r) {
        const size_type n = count[static_cast<std::size_t>(r) + 1];
        if (n == 0) continue;
        slot[static_cast<std::size_t>(r)] = table.ptr.back();
        table.rows.push_back(r);
        table.ptr.push_back(table.ptr.back() + n);
    }
    table.sources.resize(target.size());
    for (std::size_t e = 0; e < target.size(); ++e)
        table.sources[static_cast<std::size_t>(slot[static_cast<std::size_t>(target[e])]++)] =
            source.empty() ? static_cast<size_type>(e) : source[e];
    return table;
}

}  // namespace tessel::comm
