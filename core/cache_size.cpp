// The last-level cache's size from sysfs.
#include "core/cache_size.hpp"

#include <fstream>
#include <string>

namespace tessel {

namespace {

/// Parses sysfs cache sizes: "32768K", "1M", "512".
std::size_t sysfs_size(const std::string& path) {
    std::ifstream in(path);
    std::size_t value = 0;
    std::string unit;
    if (!(in >> value)) return 0;
    in >> unit;
    if (!unit.empty() && (unit[0] == 'K' || unit[0] == 'k')) value <<= 10;
    if (!unit.empty() && unit[0] == 'M') value <<= 20;
    if (!unit.empty() && unit[0] == 'G') value <<= 30;
    return value;
}

}  // namespace

std::size_t llc_bytes() {
    static const std::size_t bytes = [] {
        const std::string base = "/sys/devices/system/cpu/cpu0/cache/index";
        int best_level = 0;
        std::size_t best = 0;
        for (int i = 0; i < 16; ++i) {
            std::ifstream level_file(base + std::to_string(i) + "/level");
            int level = 0;
            if (!(level_file >> level)) continue;
            std::ifstream type_file(base + std::to_string(i) + "/type");
            std::string type;
            type_file >> type;
            if (type == "Instruction") continue;
            const std::size_t size = sysfs_size(base + std::to_string(i) + "/size");
            if (size > 0 && level >= best_level) {
                best_level = level;
                best = size;
            }
        }
        return best;
    }();
    return bytes;
}

}  // namespace tessel
