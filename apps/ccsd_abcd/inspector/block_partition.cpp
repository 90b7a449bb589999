// Worst-fit partition of a process's columns into device blocks.
#include "apps/ccsd_abcd/inspector/block_partition.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace tessel::abcd {

std::vector<ColumnBlock> partition_into_blocks(const std::vector<size_type>& columns,
                                               const std::vector<size_type>& bytes,
                                               size_type capacity, int devices) {
    if (devices < 1) TESSEL_INVALID_INPUT("block partition", 0, "needs at least one device");
    TESSEL_ENSURE_DIMS(columns.size() == bytes.size(), "block partition: one size per column");
    std::vector<std::size_t> order(columns.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return bytes[a] > bytes[b] || (bytes[a] == bytes[b] && columns[a] < columns[b]);
    });
    std::vector<ColumnBlock> blocks;
    std::vector<std::size_t> open(static_cast<std::size_t>(devices));
    for (int d = 0; d < devices; ++d) {
        open[d] = blocks.size();
        blocks.push_back(ColumnBlock{d, {}, 0});
    }
    int next_device = 0;
    for (auto idx : order) {
        const size_type need = bytes[idx];
        if (need > capacity)
            TESSEL_THROW(OutOfMemoryBudget, "column " + std::to_string(columns[idx]) + " needs " +
                                                std::to_string(need) + " bytes, a block holds " +
                                                std::to_string(capacity));
        int best = -1;
        size_type best_room = -1;
        for (int d = 0; d < devices; ++d) {
            const size_type room = capacity - blocks[open[d]].bytes;
            if (room >= need && room > best_room) {
                best = d;
                best_room = room;
            }
        }
        if (best < 0) {
            best = next_device;
            next_device = (next_device + 1) % devices;
            open[best] = blocks.size();
            blocks.push_back(ColumnBlock{best, {}, 0});
        }
        blocks[open[best]].columns.push_back(columns[idx]);
        blocks[open[best]].bytes += need;
    }
    std::vector<ColumnBlock> out;
    for (auto& b : blocks)
        if (!b.columns.empty()) out.push_back(std::move(b));
    return out;
}

}  // namespace tessel::abcd
