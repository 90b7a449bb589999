// Mirrored-cyclic assignment of columns sorted by flops.
#include "apps/ccsd_abcd/inspector/column_assignment.hpp"

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

std::vector<double> process_loads(const std::vector<int>& owner, const std::vector<double>& flops, int q) {
    std::vector<double> load(static_cast<std::size_t>(std::max(q, 0)), 0.0);
    for (std::size_t c = 0; c < owner.size(); ++c) load[owner[c]] += flops[c];
    return load;
}

void refine_assignment(std::vector<int>& owner, const std::vector<double>& flops, int q) {
    if (q < 1) TESSEL_INVALID_INPUT("column assignment", 0, "q must be at least 1");
    if (q == 1) return;
    std::vector<double> load = process_loads(owner, flops, q);
    const int max_steps = 64 * q + static_cast<int>(owner.size());
    for (int step = 0; step < max_steps; ++step) {
        const int hi = static_cast<int>(std::max_element(load.begin(), load.end()) - load.begin());
        const int lo = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
        const double top = load[hi];
        std::vector<std::size_t> from, to;
        for (std::size_t c = 0; c < owner.size(); ++c) {
            if (owner[c] == hi && flops[c] > 0) from.push_back(c);
            if (owner[c] == lo) to.push_back(c);
        }
        // The new larger load of the pair after shifting `delta` flops from hi to lo.
        auto after = [&](double delta) { return std::max(load[hi] - delta, load[lo] + delta); };
        double best = top;
        std::size_t move = owner.size(), back = owner.size();
        for (auto c : from)
            if (after(flops[c]) < best) {
                best = after(flops[c]);
                move = c;
                back = owner.size();
            }
        for (auto c : from)
            for (auto d : to)
                if (flops[c] > flops[d] && after(flops[c] - flops[d]) < best) {
                    best = after(flops[c] - flops[d]);
                    move = c;
                    back = d;
                }
        if (move == owner.size() || best >= top * (1 - 1e-12)) break;
        owner[move] = lo;
        load[hi] -= flops[move];
        load[lo] += flops[move];
        if (back != owner.size()) {
            owner[back] = hi;
            load[lo] -= flops[back];
            load[hi] += flops[back];
        }
    }
}

}  // namespace tessel::abcd
