// Machine probes from sysfs, /proc, the affinity mask and the host name.
#include "core/app/machine.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "core/app/byte_size.hpp"

namespace tessel {

namespace {

double meminfo_bytes(const std::string& field) {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    double kib = 0;
    while (in >> key >> kib) {
        if (key == field + ":") return kib * 1024.0;
        std::getline(in, unit);
    }
    return 0;
}

}  // namespace

double physical_memory_bytes() {
    const double total = meminfo_bytes("MemTotal");
    if (total > 0) return total;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

double host_memory_bytes() {
    const double bytes = physical_memory_bytes();
    return bytes > 0 ? bytes : 8.0 * (1 << 30);
}

double available_memory_bytes() {
    if (const char* pinned = std::getenv("TESSEL_AVAILABLE_MEMORY"))
        return app::parse_bytes(pinned, "TESSEL_AVAILABLE_MEMORY");
    return meminfo_bytes("MemAvailable");
}

int cores_allowed() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, CPU_COUNT(&set));
}

std::string host_name() {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    return host;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "unknown";
}

}  // namespace tessel
