// Mirrored-cyclic assignment of columns sorted by flops.
#include "apps/ccsd_abcd/column_assignment.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace tessel::abcd {

std::vector<int> assign_columns_mirrored_cyclic(const std::vector<double>& flops, int q) {
    if (q < 1) TESSEL_INVALID_INPUT("column assignment", 0, "q must be at least 1");
    std::vector<size_type> order(flops.size());
    std::iota(order.begin(), order.end(), size_type{0});
    std::stable_sort(order.begin(), order.end(), [&](size_type a, size_type b) { return flops[a] < flops[b]; });
    std::vector<int> owner(flops.size(), 0);
    for (std::size_t t = 0; t < order.size(); ++t) {
        const int pos = static_cast<int>(t % q);
        owner[order[t]] = (t / q) % 2 == 0 ? pos : q - 1 - pos;
    }
    return owner;
}

}  // namespace tessel::abcd
