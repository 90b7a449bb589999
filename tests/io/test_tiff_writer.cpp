// 32-bit float TIFF: round trip of values (negative, fractional, large), the stack's names,
// and one clear message when the file cannot be written.
#include <catch2/catch.hpp>

#include <filesystem>

#include "io/tiff_writer.hpp"
#include "io_test_helpers.hpp"

using namespace tessel;
using namespace tessel::io;
using tessel::io::test::invalid_input;
using tessel::io::test::TempDir;

TEST_CASE("float TIFF round trip", "[io][tiff]") {
    TempDir dir;
    const size_type rows = 5, cols = 7;
    std::vector<float> image(rows * cols);
    for (size_type i = 0; i < rows * cols; ++i) image[i] = -3.25f + 0.1f * float(i) * float(i);
    const auto path = dir.file("one.tiff");
    write_tiff(path, image.data(), rows, cols);
    const auto back = read_tiff(path);
    CHECK(back.rows == rows);
    CHECK(back.cols == cols);
    CHECK(back.values == image);

    const std::vector<float> volume(3 * 4 * 4, 1.5f);
    const auto paths = write_tiff_stack(dir.file("stack"), volume, 3, 4, 41);
    REQUIRE(paths.size() == 3);
    CHECK(std::filesystem::path(paths[1]).filename() == "recon_00042.tiff");
    CHECK(read_tiff(paths[2]).values == std::vector<float>(16, 1.5f));

    CHECK(invalid_input([&] { read_tiff(dir.file("missing.tiff")); }).find(dir.file("missing.tiff") + ": cannot open TIFF") == 0);
    CHECK(invalid_input([&] { write_tiff(dir.file("no/such/folder/x.tiff"), image.data(), rows, cols); })
              .find(dir.file("no/such/folder/x.tiff")) == 0);
}
