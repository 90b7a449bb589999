// The store of finished slices of a checkpointed run: appended and flushed round by round,
// reopened by a resumed run only when it is the checkpoint's, and released as a plain volume.
#include <catch2/catch.hpp>

#include <numeric>

#include "apps/xct/io/finished_slices.hpp"
#include "xct_test_util.hpp"

namespace tessel::xct::test {

namespace {
SliceStore store_at(const std::string& path, std::int64_t run) { return {path, "/exchange/recon", run}; }
}  // namespace

TEST_CASE("finished slices are kept on disk and reopened by the run that wrote them", "[xct][checkpoint]") {
    TempDir dir;
    const auto where = store_at(dir.file("out.h5.partial"), FinishedSlices::new_run_id());
    std::vector<float> images(3 * 2 * 2);
    std::iota(images.begin(), images.end(), 0.5f);
    {
        auto store = FinishedSlices::create(where, 3, 2);
        store.append(0, 2, images.data());  // a round of two slices; then the run stops
        CHECK(store.done() == 2);
    }
    auto store = FinishedSlices::open(where, 3, 2, 2);
    CHECK(store.done() == 2);
    CHECK(store.read(1, 1) == std::vector<float>(images.begin() + 4, images.begin() + 8));
    store.append(2, 1, images.data() + 8);
    io::File file = std::move(store).release();
    CHECK_FALSE(file.has_attribute("/exchange/recon", "tessel_finished_slices"));
    CHECK_FALSE(file.has_attribute("/exchange/recon", "tessel_run_id"));
    CHECK(file.read<float>("/exchange/recon") == images);
}

TEST_CASE("a store that is not the checkpoint's is refused in one line", "[xct][checkpoint]") {
    TempDir dir;
    const std::string path = dir.file("out.h5.partial");
    const auto where = store_at(path, 42);
    std::vector<float> image(2 * 2, 1.0f);
    { FinishedSlices::create(where, 3, 2).append(0, 1, image.data()); }
    const std::string place = path + ":/exchange/recon";
    CHECK(error_of([&] { FinishedSlices::open(store_at(path, 43), 3, 2, 1); }) ==
          place + ": written by another run than the checkpoint's");
    CHECK(error_of([&] { FinishedSlices::open(where, 3, 2, 2); }) ==
          place + ": holds 1 finished slices, the checkpoint needs 2");
    CHECK(error_of([&] { FinishedSlices::open(where, 4, 2, 1); }) == place + ": shape 3 x 2 x 2, expected 4 x 2 x 2");
    CHECK(error_of([&] { FinishedSlices::open(store_at(dir.file("gone.partial"), 42), 3, 2, 1); }) ==
          dir.file("gone.partial") + ": cannot open: no such file");
}

}  // namespace tessel::xct::test
