// PNG writer: a gradient read back with libpng, ranges, NaN pixels, colour maps, atomicity.
#include <catch2/catch.hpp>

#include <png.h>

#include <cmath>
#include <limits>

#include "io/png_writer.hpp"
#include "io_test_helpers.hpp"

using namespace tessel;
using namespace tessel::io;
using tessel::io::test::invalid_input;
using tessel::io::test::TempDir;

namespace {

struct Decoded {
    png_uint_32 width = 0;
    png_uint_32 height = 0;
    png_uint_32 format = 0;
    std::vector<unsigned char> pixels;
};

/// Reads a PNG back in its own format (gray or RGB) with libpng's simplified API.
Decoded decode(const std::string& path, bool rgb) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    REQUIRE(png_image_begin_read_from_file(&image, path.c_str()) != 0);
    Decoded out;
    out.width = image.width;
    out.height = image.height;
    out.format = image.format;
    image.format = rgb ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    out.pixels.resize(PNG_IMAGE_SIZE(image));
    REQUIRE(png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr) != 0);
    return out;
}

}  // namespace

TEST_CASE("png gradient reads back with the right size and levels", "[io][png]") {
    TempDir dir;
    const size_type rows = 3, cols = 256;
    std::vector<float> image(rows * cols);
    for (size_type i = 0; i < rows; ++i)
        for (size_type j = 0; j < cols; ++j) image[i * cols + j] = -1.0f + 2.0f * float(j) / 255.0f;
    image[2 * cols + 5] = std::numeric_limits<float>::quiet_NaN();
    write_png(dir.file("g.png"), image.data(), rows, cols);
    CHECK(dir.listing() == std::vector<std::string>{"g.png"});

    const auto png = decode(dir.file("g.png"), false);
    CHECK(png.width == 256);
    CHECK(png.height == 3);
    CHECK(png.format == PNG_FORMAT_GRAY);  // written as 8-bit grayscale
    CHECK(png.pixels[0] == 0);
    CHECK(png.pixels[128] == 128);
    CHECK(png.pixels[255] == 255);
    CHECK(png.pixels[cols + 77] == 77);
    CHECK(png.pixels[2 * cols + 5] == 0);  // NaN is black
    CHECK(png.pixels[2 * cols + 6] == 6);
}

TEST_CASE("png with a given range clamps outside values", "[io][png]") {
    TempDir dir;
    const std::vector<float> image{-5.0f, 0.0f, 0.5f, 1.0f, 7.0f, std::numeric_limits<float>::infinity()};
    PngOptions options;
    options.range = {{0.0, 1.0}};
    write_png(dir.file("r.png"), image.data(), 2, 3, options);
    const auto png = decode(dir.file("r.png"), false);
    CHECK(png.width == 3);
    CHECK(png.height == 2);
    CHECK(png.pixels == std::vector<unsigned char>{0, 0, 128, 255, 255, 255});

    // A column-major view is drawn by (row, column), not by memory order.
    const std::vector<float> col_major{0.0f, 1.0f, 0.5f, 0.5f};  // (0,0)=0 (1,0)=1 (0,1)=.5 (1,1)=.5
    write_png(dir.file("c.png"), DenseView<const float>(col_major.data(), 2, 2, Layout::col_major), options);
    CHECK(decode(dir.file("c.png"), false).pixels == std::vector<unsigned char>{0, 128, 255, 128});

    options.range = {{1.0, 1.0}};
    CHECK(invalid_input([&] { write_png(dir.file("e.png"), image.data(), 2, 3, options); }) ==
          dir.file("e.png") + ": empty value range [1, 1]");
    CHECK_THROWS_AS(write_png(dir.file("e.png"), image.data(), 0, 3), DimensionMismatch);
    CHECK(dir.listing() == std::vector<std::string>{"c.png", "r.png"});
}

TEST_CASE("png viridis colour map", "[io][png]") {
    TempDir dir;
    const std::vector<float> image{0.0f, 0.5f, 1.0f, std::numeric_limits<float>::quiet_NaN()};
    PngOptions options;
    options.colormap = parse_colormap("viridis");
    write_png(dir.file("v.png"), image.data(), 1, 4, options);
    const auto png = decode(dir.file("v.png"), true);
    CHECK(png.format == PNG_FORMAT_RGB);
    REQUIRE(png.pixels.size() == 12);
    CHECK(std::vector<int>(png.pixels.begin(), png.pixels.begin() + 3) == std::vector<int>{0x44, 0x01, 0x54});
    CHECK(std::abs(int(png.pixels[3]) - 0x21) <= 1);  // the middle is teal (#21908c)
    CHECK(std::abs(int(png.pixels[4]) - 0x90) <= 1);
    CHECK(std::abs(int(png.pixels[5]) - 0x8c) <= 1);
    CHECK(std::vector<int>(png.pixels.begin() + 6, png.pixels.begin() + 9) == std::vector<int>{0xfd, 0xe7, 0x25});
    CHECK(std::vector<int>(png.pixels.begin() + 9, png.pixels.end()) == std::vector<int>{0, 0, 0});

    CHECK(parse_colormap("gray") == Colormap::gray);
    CHECK(parse_colormap("grey") == Colormap::gray);
    CHECK(invalid_input([] { parse_colormap("jet"); }) == "colormap: unknown colour map 'jet', expected gray or viridis");
}

TEST_CASE("png writer reports an unwritable path and a constant image is black", "[io][png]") {
    TempDir dir;
    const std::vector<float> image(4, 3.0f);
    const auto path = dir.file("missing/dir/x.png");
    CHECK(invalid_input([&] { write_png(path, image.data(), 2, 2); }) ==
          path + ": cannot open for writing: No such file or directory");
    write_png(dir.file("k.png"), image.data(), 2, 2);
    CHECK(decode(dir.file("k.png"), false).pixels == std::vector<unsigned char>{0, 0, 0, 0});
}
