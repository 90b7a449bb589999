// Peak RSS from /proc/self/status (VmHWM, kB) or getrusage (ru_maxrss, KiB on Linux).
#include "apps/spdnn/driver/peak_memory.hpp"

#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

namespace tessel::spdnn {

size_type peak_rss_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmHWM:", 0) != 0) continue;
        std::istringstream in(line.substr(6));
        long long kib = 0;
        if (in >> kib) return static_cast<size_type>(kib) * 1024;
    }
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) == 0) return static_cast<size_type>(usage.ru_maxrss) * 1024;
    return 0;
}

}  // namespace tessel::spdnn
