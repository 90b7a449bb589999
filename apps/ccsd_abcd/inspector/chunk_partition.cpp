// Greedy cyclic chunks of A tiles.
#include "apps/ccsd_abcd/inspector/chunk_partition.hpp"

#include "core/error.hpp"

namespace tessel::abcd {

std::vector<Chunk> partition_into_chunks(const std::vector<std::vector<ATileRef>>& rows, size_type capacity) {
    std::vector<std::size_t> next(rows.size(), 0);
    size_type left = 0;
    for (const auto& r : rows) {
        left += static_cast<size_type>(r.size());
        for (const auto& t : r)
            if (t.bytes > capacity)
                TESSEL_THROW(OutOfMemoryBudget, "tile " + std::to_string(t.position) + " of A needs " +
                                                    std::to_string(t.bytes) + " bytes, a chunk holds " +
                                                    std::to_string(capacity));
    }
    std::vector<Chunk> chunks;
    Chunk current;
    while (left > 0) {
        for (std::size_t r = 0; r < rows.size(); ++r) {
            if (next[r] >= rows[r].size()) continue;
            const ATileRef& t = rows[r][next[r]];
            if (current.bytes + t.bytes > capacity) {
                chunks.push_back(std::move(current));
                current = Chunk{};
            }
            current.tiles.push_back(t.position);
            current.bytes += t.bytes;
            ++next[r];
            --left;
        }
    }
    if (!current.tiles.empty()) chunks.push_back(std::move(current));
    return chunks;
}

}  // namespace tessel::abcd
