// Fuzzes the tessel-xct checkpoint reader and its validation (HDF5 file images): a resumed
// run indexes nothing that validate_checkpoint has not checked. Only tessel::Error may leave.
#include <cstdint>

#include "apps/xct/io/checkpoint.hpp"
#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "input.ckpt.h5");
    try {
        const auto c = tessel::xct::read_checkpoint<float>(path);
        // The geometry of fuzz/corpus/xct_checkpoint/ck.h5: 16 x 16 pixels, 24 angles x 16 channels.
        tessel::xct::validate_checkpoint(path, c, 256, 384, 1, 4);
    } catch (const tessel::Error&) {
    }
    return 0;
}
