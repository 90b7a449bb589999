// Raw sinogram shapes cross-checked against the file size and the data.
#include "apps/xct/io/raw_shape.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.hpp"

namespace tessel::xct {

namespace {

// Above this, rows are taken to be repeated projections (measured: 0.9997 for a 512-channel
// phantom read with half its angles, 0.988 for a 32-channel one with 48 angles; 0.36-0.66 for
// true rows cut in 2 or 4).
constexpr double repeated_threshold = 0.95;
// Rows of the first slice read for the check: enough for a stable figure, a few MB at most.
constexpr size_type sample_rows = 256;

std::uintmax_t file_bytes(const std::string& path) {
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    if (ec) TESSEL_INVALID_INPUT(path, 0, "cannot open: " + ec.message());
    return bytes;
}

std::string shape_text(size_type slices, size_type angles, size_type channels) {
    return std::to_string(slices) + " slice(s) x " + std::to_string(angles) + " angles x " +
           std::to_string(channels) + " channels";
}

// Both given or channels given: the size must agree exactly.
RawShape from_channels(const std::string& path, std::uintmax_t bytes, size_type num_theta, size_type num_slices,
                       size_type channels) {
    const std::uintmax_t per_slice = std::uintmax_t(num_theta) * std::uintmax_t(channels) * 4;
    if (num_slices > 0 && bytes != per_slice * std::uintmax_t(num_slices))
        TESSEL_INVALID_INPUT(path, 0,
                             std::to_string(bytes) + " bytes, but " + shape_text(num_slices, num_theta, channels) +
                                 " of float32 are " + std::to_string(per_slice * num_slices) + " bytes");
    if (bytes == 0 || bytes % per_slice != 0)
        TESSEL_INVALID_INPUT(path, 0,
                             std::to_string(bytes) + " bytes are not whole slices of " + std::to_string(num_theta) +
                                 " angles x " + std::to_string(channels) + " channels of float32");
    return {static_cast<size_type>(bytes / per_slice), channels};
}

std::vector<float> first_rows(const std::string& path, size_type rows, size_type cols) {
    std::vector<float> values(static_cast<std::size_t>(rows * cols));
    std::ifstream in(path, std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(values.data()), std::streamsize(values.size() * sizeof(float))))
        TESSEL_INVALID_INPUT(path, 0, "cannot read its first " + std::to_string(rows) + " rows");
    return values;
}

// Refuses a derived channel count whose rows are several projections each.
void check_rows_are_projections(const std::string& path, const std::string& theta_path, size_type num_theta,
                                RawShape shape) {
    const size_type rows = std::min(num_theta, sample_rows);
    const auto values = first_rows(path, rows, shape.channels);
    int best = 0;  // the part count whose pieces are most alike
    double alike = repeated_threshold;
    for (int parts : {2, 3, 4}) {
        if (shape.channels % parts != 0 || shape.channels / parts < 4) continue;
        const double likeness = repeated_parts(values.data(), rows, shape.channels, parts);
        if (likeness > alike) best = parts, alike = likeness;
    }
    if (best == 0) return;
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.4f", alike);
    TESSEL_INVALID_INPUT(path, 0,
                         "each row of " + std::to_string(shape.channels) + " values looks like " + std::to_string(best) +
                             " consecutive projections of " + std::to_string(shape.channels / best) + " (likeness " +
                             figure + "): the file holds more angles or slices than " + theta_path + " (" +
                             std::to_string(num_theta) + " angles) and --num-slices (" + std::to_string(shape.slices) +
                             ") say; give --channels to state the geometry");
}

}  // namespace

double repeated_parts(const float* values, size_type rows, size_type cols, int parts) {
    const size_type width = cols / parts;
    double differ = 0, total = 0;
    for (size_type r = 0; r < rows; ++r)
        for (int p = 0; p + 1 < parts; ++p) {
            const float* a = values + r * cols + p * width;
            const float* b = a + width;
            for (size_type i = 0; i < width; ++i) {
                const double x = a[i], y = b[i];
                differ += (x - y) * (x - y);
                total += x * x + y * y;
            }
        }
    return total > 0 ? 1.0 - differ / total : 0.0;
}

RawShape raw_shape(const std::string& path, const std::string& theta_path, size_type num_theta,
                   size_type num_slices, size_type channels) {
    const std::uintmax_t bytes = file_bytes(path);
    if (channels > 0) return from_channels(path, bytes, num_theta, num_slices, channels);
    const size_type slices = num_slices > 0 ? num_slices : 1;
    const std::uintmax_t per_channel = std::uintmax_t(slices) * std::uintmax_t(num_theta) * 4;
    if (bytes == 0 || bytes % per_channel != 0)
        TESSEL_INVALID_INPUT(path, 0,
                             std::to_string(bytes) + " bytes are not " + std::to_string(slices) + " slice(s) x " +
                                 std::to_string(num_theta) + " angles x whole channels of float32");
    const RawShape shape{slices, static_cast<size_type>(bytes / per_channel)};
    check_rows_are_projections(path, theta_path, num_theta, shape);
    return shape;
}

}  // namespace tessel::xct
