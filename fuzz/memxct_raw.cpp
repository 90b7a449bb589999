// Fuzzes the MemXCT raw readers: the theta file, then a sinogram of the first byte's slices
// against those angles (as tessel-xct derives the channel count), and raw images.
#include <cstdint>

#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"
#include "io/memxct_raw.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const auto slices = static_cast<tessel::size_type>(data[0] % 8) - 1;  // -1 .. 6: bad counts too
    const auto path = tessel::fuzz::input_file(data + 1, size - 1, "input.raw");
    try {
        const auto theta = tessel::io::read_theta(path);
        const auto angles = static_cast<tessel::size_type>(theta.size());
        const auto count = tessel::io::count_sinogram_slices(path, angles, 1);
        (void)tessel::io::read_sinogram(path, count, angles, 1);
    } catch (const tessel::Error&) {
    }
    try {
        (void)tessel::io::read_sinogram(path, slices, 4, 8);
    } catch (const tessel::Error&) {
    }
    try {
        (void)tessel::io::read_raw_image(path, 4, slices);
    } catch (const tessel::Error&) {
    }
    return 0;
}
