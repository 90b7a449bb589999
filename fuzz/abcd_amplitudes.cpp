// Fuzzes tessel-abcd's amplitude file reader (--amplitudes amp.h5: t2, c_vir, ao_order; HDF5
// file images). Only tessel::Error may leave.
#include <cstdint>

#include "apps/ccsd_abcd/integrals/amplitudes.hpp"
#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "input.amp.h5");
    try {
        (void)tessel::abcd::read_amplitudes(path);
    } catch (const tessel::Error&) {
    }
    return 0;
}
