// Fuzzes the Graph Challenge categories reader; only tessel::Error may leave it.
#include <cstdint>

#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"
#include "io/graph_challenge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "categories.tsv");
    try {
        (void)tessel::io::read_categories(path, 0);
    } catch (const tessel::Error&) {
    }
    try {
        (void)tessel::io::read_categories(path, 60000);
    } catch (const tessel::Error&) {
    }
    return 0;
}
