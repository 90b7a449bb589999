// Fuzzes the --grid PxQ parser of tessel-abcd against rank counts 1..256 (issue 14 found
// 4294967296x4294967296 dividing by zero). Only tessel::Error may leave it.
#include <cstdint>
#include <string>

#include "apps/ccsd_abcd/inspector/process_grid.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const int ranks = 1 + data[0];
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        (void)tessel::abcd::ProcessGrid::parse(text, ranks);
    } catch (const tessel::Error&) {
    }
    return 0;
}
