// Fuzzes the Graph Challenge layer and image readers (TSV triplets); only tessel::Error may
// leave them.
#include <cstdint>

#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"
#include "io/graph_challenge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "layer.tsv");
    try {
        (void)tessel::io::read_layer_tsv<float, std::int32_t>(path, 64);
    } catch (const tessel::Error&) {
    }
    try {
        (void)tessel::io::read_images_tsv<float, std::int32_t>(path, 60000, 1024);
    } catch (const tessel::Error&) {
    }
    return 0;
}
