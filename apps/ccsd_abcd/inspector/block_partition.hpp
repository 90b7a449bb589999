// Partition into blocks of the paper's section 3.2.2: a process's columns grouped into blocks
// whose B and C tiles fit in half of a device's memory, spread over its devices by worst-fit.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

struct ColumnBlock {
    int device = 0;                  ///< the device (GPU) that runs the block
    std::vector<size_type> columns;  ///< columns of B (and C) in the order they were placed
    size_type bytes = 0;             ///< Σ bytes of its columns
};

/// Columns `columns` with sizes `bytes` (B tiles of the column plus the local C tiles) sorted
/// by non-increasing size (ties by column), then placed one by one: each device has one open
/// block; a column goes to the open block with the most room left among those where it fits
/// (worst-fit, ties to the lower device); when it fits nowhere, the open block of device d
/// (round-robin d = 0, 1, ..., devices-1, 0, ...) is closed and a new one opened there with
/// the column. Blocks are returned in opening order; per device, that is execution order.
/// Devices that never get a column have no block. Throws OutOfMemoryBudget when a column is
/// larger than `capacity`, InvalidInput when devices < 1.
std::vector<ColumnBlock> partition_into_blocks(const std::vector<size_type>& columns,
                                               const std::vector<size_type>& bytes,
                                               size_type capacity, int devices);

}  // namespace tessel::abcd
