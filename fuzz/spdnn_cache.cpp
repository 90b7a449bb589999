// Fuzzes tessel-spdnn's binary caches (HDF5 file images): the network, the images, and the
// stored tiled-ELL layers (header, then each layer without the checksum so that the fuzzer
// reaches the checks of sizes, offsets, columns, local indices and the order).
#include <cstdint>

#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/io/tiled_cache.hpp"
#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"

namespace {

// The corpus's tiled files: N = 64, L = 1 (under libFuzzer's 64 KiB input limit), block rows
// 32, rows reordered or not.
void read_tiled(const std::string& path, int reorder) {
    const auto layout = tessel::spdnn::weight_layout(64, 32, reorder);
    try {
        if (!tessel::spdnn::probe_stored_tiled(path, 64, 1, layout).usable) return;
        const auto file = tessel::io::File::open(path);
        for (tessel::size_type k = 0; k < 1; ++k) {
            (void)tessel::spdnn::read_tiled_layer(file, k, 64, layout, /*verify_checksum=*/false);
            (void)tessel::spdnn::read_tiled_layer(file, k, 64, layout);
        }
    } catch (const tessel::Error&) {
    }
}

}  // namespace

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
    read_tiled(path, 0);
    read_tiled(path, 1);
    return 0;
}
