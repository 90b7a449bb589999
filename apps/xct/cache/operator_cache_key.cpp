// The operator cache's key: everything that determines A and Aᵀ, in words, and its file name.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "apps/xct/cache/operator_cache.hpp"

namespace tessel::xct {

namespace {

std::uint64_t fnv(const std::string& text) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
    return h;
}

}  // namespace

std::string OperatorCacheKey::file_name() const {
    char name[40];
    std::snprintf(name, sizeof(name), "xct-op-%016llx.bin", static_cast<unsigned long long>(fnv(text)));
    return name;
}

OperatorCacheKey operator_cache_key(const Geometry& g, const Ordering& ordering, const ProjectorOptions& o,
                                    int value_bytes) {
    return operator_cache_key(g, ordering.kind, ordering.tile, o, value_bytes);
}

bool operator_cache_has(const std::string& dir, const OperatorCacheKey& key) {
    std::error_code ec;
    return std::filesystem::is_regular_file(std::filesystem::path(dir) / key.file_name(), ec);
}

OperatorCacheKey operator_cache_key(const Geometry& g, DomainOrder order, size_type tile, const ProjectorOptions& o,
                                    int value_bytes) {
    std::string angles;
    for (double t : g.theta) {
        std::uint64_t bits;
        std::memcpy(&bits, &t, 8);
        angles += std::to_string(bits) + ",";
    }
    return {"version=" + std::to_string(operator_cache_version) + ";n=" + std::to_string(g.n) +
            ";channels=" + std::to_string(g.num_rho) + ";order=" + std::string(to_string(order)) +
            ";tile=" + std::to_string(tile) + ";block_rows=" + std::to_string(o.tiles.block_rows) +
            ";buffer_entries=" + std::to_string(o.tiles.buffer_entries) + ";value_bytes=" +
            std::to_string(value_bytes) + ";half=" + std::to_string(o.half_values) +
            ";transpose=" + (o.scatter_transpose ? "scatter" : "stored") + ";data_ranks=1;angles=" + angles};
}

}  // namespace tessel::xct
