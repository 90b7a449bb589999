// Fuzzes tessel-spdnn's binary caches (HDF5 file images): the network and the images.
#include <cstdint>

#include "apps/spdnn/cache.hpp"
#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "input.cache.h5");
    try {
        (void)tessel::spdnn::read_network_cache(path, 64, 2, -0.3f);
    } catch (const tessel::Error&) {
    }
    try {
        (void)tessel::spdnn::read_images_cache(path, 64, 0);
    } catch (const tessel::Error&) {
    }
    return 0;
}
