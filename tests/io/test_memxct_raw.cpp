// MemXCT raw float32 files: round trips, size checks and non-finite values.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numeric>

#include "io/memxct_raw.hpp"
#include "io_test_helpers.hpp"

using namespace tessel;
using namespace tessel::io;
using tessel::io::test::invalid_input;
using tessel::io::test::TempDir;

TEST_CASE("memxct raw round trips", "[io][memxct]") {
    TempDir dir;
    const std::vector<float> theta{0.0f, 0.5f, 3.1f};
    write_theta(dir.file("theta.bin"), theta);
    CHECK(read_theta(dir.file("theta.bin")) == theta);

    std::vector<float> sino(2 * 3 * 4);
    std::iota(sino.begin(), sino.end(), -5.0f);
    write_sinogram(dir.file("sino.bin"), sino, 2, 3, 4);
    CHECK(count_sinogram_slices(dir.file("sino.bin"), 3, 4) == 2);
    const auto back = read_sinogram(dir.file("sino.bin"), 2, 3, 4);
    CHECK(back == sino);
    CHECK(back[(1 * 3 + 2) * 4 + 3] == sino.back());  // (slice 1, angle 2, channel 3)

    std::vector<float> image(5 * 5, 0.25f);
    image[7] = -1.0f;
    write_raw_image(dir.file("image.bin"), image, 5);
    CHECK(read_raw_image(dir.file("image.bin"), 5) == image);
    CHECK(dir.listing() == std::vector<std::string>{"image.bin", "sino.bin", "theta.bin"});
    CHECK_THROWS_AS(write_raw_image(dir.file("x.bin"), image, 4), DimensionMismatch);
}

TEST_CASE("memxct raw readers reject bad sizes and values", "[io][memxct]") {
    TempDir dir;
    const auto odd = dir.write("odd.bin", std::string(10, '\0'));
    CHECK(invalid_input([&] { read_theta(odd); }) == odd + ": size 10 bytes is not a multiple of 4 (float32)");
    const auto empty = dir.write("empty.bin", "");
    CHECK(invalid_input([&] { read_theta(empty); }) == empty + ": file is empty, expected float32 angles");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const auto theta = dir.write_binary("theta.bin", std::vector<float>{0.0f, 1.0f, nan});
    CHECK(invalid_input([&] { read_theta(theta); }) == theta + ": element 2 is not finite");

    std::vector<float> sino(2 * 3 * 4, 1.0f);
    const auto short_sino = dir.write_binary("short.bin", std::vector<float>(23, 1.0f));
    CHECK(invalid_input([&] { read_sinogram(short_sino, 2, 3, 4); }) ==
          short_sino + ": expected 96 bytes (2 x 3 x 4 float32), found 92");
    CHECK(invalid_input([&] { count_sinogram_slices(short_sino, 3, 4); }) ==
          short_sino + ": expected a multiple of 48 bytes (3 x 4 float32 per slice), found 92");
    sino[(1 * 3 + 1) * 4 + 3] = inf;
    const auto bad = dir.write_binary("bad.bin", sino);
    CHECK(invalid_input([&] { read_sinogram(bad, 2, 3, 4); }) ==
          bad + ": element 19 (slice 1, angle 1, channel 3) is not finite");

    std::vector<float> image(3 * 3, 0.0f);
    image[5] = nan;
    const auto img = dir.write_binary("img.bin", image);
    CHECK(invalid_input([&] { read_raw_image(img, 3); }) == img + ": element 5 (slice 0, row 1, column 2) is not finite");
    CHECK(invalid_input([&] { read_raw_image(img, 4); }) == img + ": expected 64 bytes (4 x 4 float32), found 36");
    CHECK(invalid_input([&] { read_theta(dir.file("none.bin")); }) ==
          dir.file("none.bin") + ": cannot open: No such file or directory");
}
