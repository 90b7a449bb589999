// PNG output through libpng: scaling, colour maps, and libpng's setjmp error protocol.
#include "io/png_writer.hpp"

#include <png.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace tessel::io {

namespace {

/// Viridis at 9 evenly spaced stops (matplotlib's values); colours in between are linear.
constexpr std::array<std::array<unsigned char, 3>, 9> viridis_stops{{{0x44, 0x01, 0x54},
                                                                     {0x47, 0x2d, 0x7b},
                                                                     {0x3b, 0x52, 0x8b},
                                                                     {0x2c, 0x72, 0x8e},
                                                                     {0x21, 0x90, 0x8c},
                                                                     {0x27, 0xad, 0x81},
                                                                     {0x5d, 0xc8, 0x63},
                                                                     {0xaa, 0xdc, 0x32},
                                                                     {0xfd, 0xe7, 0x25}}};

std::array<unsigned char, 3> viridis(int level) {
    const double at = level / 255.0 * double(viridis_stops.size() - 1);
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(at), viridis_stops.size() - 2);
    const double w = at - double(k);
    std::array<unsigned char, 3> rgb{};
    for (int c = 0; c < 3; ++c)
        rgb[c] = static_cast<unsigned char>(
            std::lround((1.0 - w) * viridis_stops[k][c] + w * viridis_stops[k + 1][c]));
    return rgb;
}

struct PngError {
    char message[256] = {0};
};

void on_error(png_structp png, png_const_charp message) {
    auto* error = static_cast<PngError*>(png_get_error_ptr(png));
    std::snprintf(error->message, sizeof(error->message), "%s", message);
    png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

/// Encodes rows into an open file; returns false with `error` filled when libpng fails.
/// No C++ object lives across setjmp here, so longjmp skips no destructor.
bool encode(std::FILE* file, png_bytep* rows, png_uint_32 width, png_uint_32 height, int color_type,
            PngError* error) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, error, on_error, on_warning);
    if (!png) {
        std::snprintf(error->message, sizeof(error->message), "cannot create the PNG writer");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        if (!info) std::snprintf(error->message, sizeof(error->message), "cannot create the PNG header");
        png_destroy_write_struct(&png, info ? &info : nullptr);
        return false;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return true;
}

std::string number(double value) {
    char text[32];
    const int n = std::snprintf(text, sizeof(text), "%g", value);
    return std::string(text, n > 0 ? std::size_t(n) : 0);
}

}  // namespace

Colormap parse_colormap(std::string_view name) {
    if (name == "gray" || name == "grey") return Colormap::gray;
    if (name == "viridis") return Colormap::viridis;
    TESSEL_INVALID_INPUT("colormap", 0, "unknown colour map '" + std::string(name) + "', expected gray or viridis");
}

void write_png(const std::string& path, DenseView<const float> image, const PngOptions& options) {
    TESSEL_ENSURE_DIMS(image.rows > 0 && image.cols > 0,
                       "write_png: image " + std::to_string(image.rows) + " x " + std::to_string(image.cols) +
                           " is empty");
    double low = 0, high = 0;
    if (options.range) {
        low = options.range->first;
        high = options.range->second;
        if (!(high > low))
            TESSEL_INVALID_INPUT(path, 0, "empty value range [" + number(low) + ", " + number(high) + "]");
    } else {
        low = std::numeric_limits<double>::infinity();
        high = -low;
        for (size_type i = 0; i < image.rows; ++i)
            for (size_type j = 0; j < image.cols; ++j) {
                const double v = image(i, j);
                if (std::isfinite(v)) {
                    low = std::min(low, v);
                    high = std::max(high, v);
                }
            }
        if (!(high > low)) high = low + 1;  // constant (or all-NaN) image: the low end
        if (!std::isfinite(low)) low = 0, high = 1;
    }

    const bool gray = options.colormap == Colormap::gray;
    const std::size_t channels = gray ? 1 : 3;
    std::vector<unsigned char> pixels(static_cast<std::size_t>(image.rows * image.cols) * channels);
    const double scale = 255.0 / (high - low);
#pragma omp parallel for
    for (size_type i = 0; i < image.rows; ++i)
        for (size_type j = 0; j < image.cols; ++j) {
            const double v = image(i, j);
            unsigned char* out = pixels.data() + (i * image.cols + j) * channels;
            if (std::isnan(v)) {
                std::fill_n(out, channels, 0);
                continue;
            }
            const int level = static_cast<int>(std::lround(std::clamp((v - low) * scale, 0.0, 255.0)));
            if (gray) {
                out[0] = static_cast<unsigned char>(level);
            } else {
                const auto rgb = viridis(level);
                std::copy(rgb.begin(), rgb.end(), out);
            }
        }
    std::vector<png_bytep> rows(static_cast<std::size_t>(image.rows));
    for (size_type i = 0; i < image.rows; ++i) rows[i] = pixels.data() + i * image.cols * channels;

    AtomicOutput output(path);
    std::FILE* file = std::fopen(output.temp_path().c_str(), "wb");
    if (!file) TESSEL_INVALID_INPUT(path, 0, std::string("cannot open for writing: ") + std::strerror(errno));
    PngError error;
    const bool encoded = encode(file, rows.data(), static_cast<png_uint_32>(image.cols),
                                static_cast<png_uint_32>(image.rows), gray ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                                &error);
    const bool closed = std::fclose(file) == 0;
    if (!encoded) TESSEL_INVALID_INPUT(path, 0, std::string("PNG encoding failed: ") + error.message);
    if (!closed) TESSEL_INVALID_INPUT(path, 0, std::string("write failed: ") + std::strerror(errno));
    output.commit();
}

void write_png(const std::string& path, const float* image, size_type rows, size_type cols,
               const PngOptions& options) {
    write_png(path, DenseView<const float>(image, rows, cols), options);
}

}  // namespace tessel::io
