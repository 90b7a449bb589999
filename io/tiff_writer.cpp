// libtiff writer and reader of float images; TIFF stacks named as dxchange names them.
#include "io/tiff_writer.hpp"

#include <tiffio.h>

#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace tessel::io {

namespace {

/// libtiff prints warnings and errors to stderr by default; they become our messages instead.
std::string& last_tiff_error() {
    thread_local std::string text;
    return text;
}

void record_error(const char* module, const char* format, va_list args) {
    char text[512];
    std::vsnprintf(text, sizeof(text), format, args);
    last_tiff_error() = (module ? std::string(module) + ": " : std::string()) + text;
}

void quiet_libtiff() {
    TIFFSetErrorHandler(record_error);
    TIFFSetWarningHandler(nullptr);
}

struct TiffCloser {
    void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

}  // namespace

void write_tiff(const std::string& path, const float* image, size_type rows, size_type cols) {
    TESSEL_ENSURE_DIMS(rows > 0 && cols > 0, "write_tiff: empty image " + std::to_string(rows) + " x " +
                                                 std::to_string(cols));
    quiet_libtiff();
    AtomicOutput output(path);
    {
        TiffHandle tiff(TIFFOpen(output.temp_path().c_str(), "w"));
        if (!tiff) TESSEL_INVALID_INPUT(path, 0, "cannot write TIFF: " + last_tiff_error());
        TIFF* t = tiff.get();
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, static_cast<uint32_t>(cols));
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, static_cast<uint32_t>(rows));
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
        for (size_type r = 0; r < rows; ++r)
            if (TIFFWriteScanline(t, const_cast<float*>(image + r * cols), static_cast<uint32_t>(r), 0) < 0)
                TESSEL_INVALID_INPUT(path, 0, "cannot write TIFF: " + last_tiff_error());
        if (!TIFFFlush(t)) TESSEL_INVALID_INPUT(path, 0, "cannot write TIFF: " + last_tiff_error());
    }
    output.commit();
}

TiffImage read_tiff(const std::string& path) {
    quiet_libtiff();
    TiffHandle tiff(TIFFOpen(path.c_str(), "r"));
    if (!tiff) TESSEL_INVALID_INPUT(path, 0, "cannot open TIFF: " + last_tiff_error());
    TIFF* t = tiff.get();
    uint32_t width = 0, height = 0;
    uint16_t bits = 0, samples = 1, format = SAMPLEFORMAT_UINT;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetField(t, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &format);
    if (bits != 32 || samples != 1 || format != SAMPLEFORMAT_IEEEFP || width == 0 || height == 0)
        TESSEL_INVALID_INPUT(path, 0, "not a single-sample 32-bit float TIFF");
    TiffImage image;
    image.rows = height;
    image.cols = width;
    image.values.resize(static_cast<std::size_t>(width) * height);
    for (uint32_t r = 0; r < height; ++r)
        if (TIFFReadScanline(t, image.values.data() + std::size_t(r) * width, r, 0) < 0)
            TESSEL_INVALID_INPUT(path, 0, "cannot read TIFF row " + std::to_string(r) + ": " + last_tiff_error());
    return image;
}

std::vector<std::string> write_tiff_stack(const std::string& dir, const std::vector<float>& volume, size_type slices,
                                          size_type n, size_type first_slice) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(volume.size()) >= slices * n * n,
                       "write_tiff_stack: " + std::to_string(volume.size()) + " values for " + std::to_string(slices) +
                           " slices of " + std::to_string(n) + " x " + std::to_string(n));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) TESSEL_INVALID_INPUT(dir, 0, "cannot create folder: " + ec.message());
    std::vector<std::string> paths;
    for (size_type s = 0; s < slices; ++s) {
        char name[32];
        std::snprintf(name, sizeof(name), "recon_%05lld.tiff", static_cast<long long>(first_slice + s));
        paths.push_back((std::filesystem::path(dir) / name).string());
        write_tiff(paths.back(), volume.data() + s * n * n, n, n);
    }
    return paths;
}

}  // namespace tessel::io
