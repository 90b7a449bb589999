// Fuzzes tessel-abcd's XYZ molecule reader (--molecule). Only tessel::Error may leave.
#include <cstdint>

#include "apps/ccsd_abcd/integrals/xyz_molecule.hpp"
#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "input.xyz");
    try {
        (void)tessel::abcd::read_xyz(path);
    } catch (const tessel::Error&) {
    }
    return 0;
}
