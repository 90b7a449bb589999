// MemXCT raw float32 files: size checks, finiteness checks, atomic writes.
#include "io/memxct_raw.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"
#include "io/atomic_output.hpp"
#include "io/file_buffer.hpp"

namespace tessel::io {

namespace {

static_assert(sizeof(float) == 4, "float32 files need a 4-byte float");

/// The files are little-endian; a big-endian host swaps bytes.
void to_little_endian(std::span<float> values) {
    if constexpr (std::endian::native == std::endian::big) {
        for (auto& v : values) {
            std::uint32_t bits;
            std::memcpy(&bits, &v, 4);
            bits = (bits >> 24) | ((bits >> 8) & 0xff00u) | ((bits << 8) & 0xff0000u) | (bits << 24);
            std::memcpy(&v, &bits, 4);
        }
    }
}

/// Reads `count` floats after checking the size; `shape` describes them in the message.
std::vector<float> read_floats(const std::string& path, size_type count, const std::string& shape) {
    const std::int64_t bytes = file_size_bytes(path);
    if (bytes != count * 4)
        TESSEL_INVALID_INPUT(path, 0, "expected " + std::to_string(count * 4) + " bytes (" + shape +
                                          " float32), found " + std::to_string(bytes));
    std::vector<float> values(static_cast<std::size_t>(count));
    read_file_into(path, values.data(), bytes);
    to_little_endian(values);
    return values;
}

/// Index of the first value that is NaN or Inf, or -1.
size_type first_non_finite(std::span<const float> values) {
    const auto n = static_cast<size_type>(values.size());
    size_type first = n;
#pragma omp parallel for reduction(min : first)
    for (size_type i = 0; i < n; ++i)
        if (!std::isfinite(values[i]) && i < first) first = i;
    return first == n ? -1 : first;
}

/// Throws "file: element E (a A, b B, c C) is not finite" for a 3-d array of dims (n0, n1, n2).
void check_finite(const std::string& path, std::span<const float> values, size_type n1, size_type n2,
                  const char* name0, const char* name1, const char* name2) {
    const size_type bad = first_non_finite(values);
    if (bad < 0) return;
    TESSEL_INVALID_INPUT(path, 0, "element " + std::to_string(bad) + " (" + name0 + " " +
                                      std::to_string(bad / (n1 * n2)) + ", " + name1 + " " +
                                      std::to_string(bad / n2 % n1) + ", " + name2 + " " +
                                      std::to_string(bad % n2) + ") is not finite");
}

void write_floats(const std::string& path, std::span<const float> values) {
    if constexpr (std::endian::native == std::endian::big) {
        std::vector<float> copy(values.begin(), values.end());
        to_little_endian(copy);
        write_bytes_atomically(path, copy.data(), copy.size() * 4);
    } else {
        write_bytes_atomically(path, values.data(), values.size() * 4);
    }
}

std::string dims(size_type a, size_type b, size_type c) {
    return std::to_string(a) + " x " + std::to_string(b) + " x " + std::to_string(c);
}

void require_positive(const std::string& path, size_type a, size_type b, size_type c) {
    if (a < 1 || b < 1 || c < 1) TESSEL_INVALID_INPUT(path, 0, "shape " + dims(a, b, c) + " is not positive");
}

}  // namespace

std::vector<float> read_theta(const std::string& path) {
    const std::int64_t bytes = file_size_bytes(path);
    if (bytes == 0) TESSEL_INVALID_INPUT(path, 0, "file is empty, expected float32 angles");
    if (bytes % 4 != 0)
        TESSEL_INVALID_INPUT(path, 0, "size " + std::to_string(bytes) + " bytes is not a multiple of 4 (float32)");
    auto theta = read_floats(path, bytes / 4, std::to_string(bytes / 4));
    const size_type bad = first_non_finite(theta);
    if (bad >= 0) TESSEL_INVALID_INPUT(path, 0, "element " + std::to_string(bad) + " is not finite");
    return theta;
}

size_type count_sinogram_slices(const std::string& path, size_type num_theta, size_type num_rho) {
    require_positive(path, 1, num_theta, num_rho);
    const std::int64_t bytes = file_size_bytes(path);
    const std::int64_t slice = num_theta * num_rho * 4;
    if (bytes == 0 || bytes % slice != 0)
        TESSEL_INVALID_INPUT(path, 0, "expected a multiple of " + std::to_string(slice) + " bytes (" +
                                          std::to_string(num_theta) + " x " + std::to_string(num_rho) +
                                          " float32 per slice), found " + std::to_string(bytes));
    return bytes / slice;
}

std::vector<float> read_sinogram(const std::string& path, size_type num_slices, size_type num_theta,
                                 size_type num_rho) {
    require_positive(path, num_slices, num_theta, num_rho);
    auto values = read_floats(path, num_slices * num_theta * num_rho, dims(num_slices, num_theta, num_rho));
    check_finite(path, values, num_theta, num_rho, "slice", "angle", "channel");
    return values;
}

std::vector<float> read_raw_image(const std::string& path, size_type n, size_type num_slices) {
    require_positive(path, num_slices, n, n);
    const std::string shape = num_slices == 1 ? std::to_string(n) + " x " + std::to_string(n)
                                              : dims(num_slices, n, n);
    auto values = read_floats(path, num_slices * n * n, shape);
    check_finite(path, values, n, n, "slice", "row", "column");
    return values;
}

void write_theta(const std::string& path, std::span<const float> theta) { write_floats(path, theta); }

void write_sinogram(const std::string& path, std::span<const float> values, size_type num_slices,
                    size_type num_theta, size_type num_rho) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(values.size()) == num_slices * num_theta * num_rho,
                       "write_sinogram: " + std::to_string(values.size()) + " values for shape " +
                           dims(num_slices, num_theta, num_rho));
    write_floats(path, values);
}

void write_raw_image(const std::string& path, std::span<const float> image, size_type n, size_type num_slices) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(image.size()) == num_slices * n * n,
                       "write_raw_image: " + std::to_string(image.size()) + " values for shape " +
                           dims(num_slices, n, n));
    write_floats(path, image);
}

}  // namespace tessel::io
