// The writability probe of an output path.
#include "apps/ccsd_abcd/output_check.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace tessel::abcd {

void require_writable(const std::string& path, const std::string& option) {
    if (path.empty()) return;
    const std::string probe = path + ".tmp." + std::to_string(getpid());
    std::FILE* f = std::fopen(probe.c_str(), "wb");
    if (!f) TESSEL_INVALID_INPUT(option, 0, path + ": cannot be written (" + std::strerror(errno) + ")");
    std::fclose(f);
    std::remove(probe.c_str());
}

}  // namespace tessel::abcd
