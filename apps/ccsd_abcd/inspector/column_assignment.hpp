// Column assignment of the paper's section 3.2.1: columns of B to the q processes of a grid row,
// sorted by flops, in mirrored-cyclic order.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

/// owner[c] in 0..q-1 for every column c. Columns are sorted by non-decreasing flops f_c
/// (ties by column index) and the t-th column in that order goes to process t mod q when
/// floor(t / q) is even and to q - 1 - (t mod q) when it is odd: the first q columns in order,
/// the next q in reverse order, repeating every 2q. Throws InvalidInput when q < 1.
std::vector<int> assign_columns_mirrored_cyclic(const std::vector<double>& flops, int q);

/// Σ flops per process of an assignment.
std::vector<double> process_loads(const std::vector<int>& owner, const std::vector<double>& flops, int q);

/// Not in the paper: improves an assignment by local moves. While it lowers the larger load of
/// the most and the least loaded process, the best single move (one column from the most to
/// the least loaded) or swap (one column each way) between those two is applied. With tens of
/// columns per grid row (tiles of 512..2048 over N = 24000 give about 20), mirrored-cyclic
/// alone can leave the busiest process 10% above the mean; the refinement brings it to about
/// the size of the smallest column. Never raises the largest load. Throws InvalidInput when
/// q < 1.
void refine_assignment(std::vector<int>& owner, const std::vector<double>& flops, int q);

}  // namespace tessel::abcd
