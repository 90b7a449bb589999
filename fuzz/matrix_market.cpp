// Fuzzes the Matrix Market reader: any input is read or refused with tessel::Error; a crash,
// a sanitizer report, or any other exception (std::bad_alloc included) is a finding.
#include <cstdint>

#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"
#include "io/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "input.mtx");
    try {
        (void)tessel::io::read_matrix_market_csr<double, std::int32_t>(path);
    } catch (const tessel::Error&) {
    }
    try {
        (void)tessel::io::read_matrix_market_csr<float, std::int64_t>(path);
    } catch (const tessel::Error&) {
    }
    return 0;
}
