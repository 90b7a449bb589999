// Fuzzes tessel-abcd's problem file reader (HDF5 file images). Only tessel::Error may leave.
#include <cstdint>

#include "apps/ccsd_abcd/problem/problem_file.hpp"
#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "input.problem.h5");
    try {
        (void)tessel::abcd::load_problem(path);
    } catch (const tessel::Error&) {
    }
    return 0;
}
