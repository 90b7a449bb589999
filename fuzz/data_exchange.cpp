// Fuzzes the APS Data Exchange reader on HDF5 file images: opening, the layout checks, the
// angles and the first rows of projections and flats. Only tessel::Error may leave it.
#include <cstdint>

#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"
#include "io/data_exchange.hpp"
#include "io/hdf5_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "input.h5");
    try {
        const tessel::io::DataExchange file(path);
        (void)file.theta_degrees();
        (void)tessel::io::read_sinograms(file, 0, 1);
    } catch (const tessel::Error&) {
    }
    return 0;
}
