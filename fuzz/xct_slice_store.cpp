// Fuzzes the store of a checkpointed run's finished slices (HDF5 file images): a resumed run
// reads nothing that FinishedSlices::open has not checked. Only tessel::Error may leave.
#include <cstdint>

#include "apps/xct/io/finished_slices.hpp"
#include "core/error.hpp"
#include "fuzz/fuzz_file.hpp"
#include "io/hdf5_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = tessel::fuzz::input_file(data, size, "input.slices.h5");
    try {
        // The shape of fuzz/corpus/xct_slice_store/store.h5: 2 slices of 16 x 16, 1 finished.
        // The run id is taken from the input so that the checks after it are reached too.
        tessel::xct::SliceStore where{path, tessel::xct::FinishedSlices::own_dataset, 0};
        {
            const auto file = tessel::io::File::open(path);
            if (file.has_attribute(where.dataset, "tessel_run_id"))
                where.run = file.read_attribute<std::int64_t>(where.dataset, "tessel_run_id");
        }
        const auto store = tessel::xct::FinishedSlices::open(where, 2, 16, 1);
        (void)store.read(0, store.done());
    } catch (const tessel::Error&) {
    }
    return 0;
}
