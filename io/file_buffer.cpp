// Reading whole files into memory with plain stdio (large sequential reads).
#include "io/file_buffer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/error.hpp"

namespace tessel::io {

namespace {
struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr open_for_reading(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        TESSEL_INVALID_INPUT(path, 0, "cannot open: is a directory");
    FilePtr f(std::fopen(path.c_str(), "rb"));
    if (!f) TESSEL_INVALID_INPUT(path, 0, std::string("cannot open: ") + std::strerror(errno));
    return f;
}
}  // namespace

std::int64_t file_size_bytes(const std::string& path) {
    FilePtr f = open_for_reading(path);
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) TESSEL_INVALID_INPUT(path, 0, "cannot open: " + ec.message());
    return static_cast<std::int64_t>(size);
}

void read_file_into(const std::string& path, void* out, std::int64_t bytes) {
    FilePtr f = open_for_reading(path);
    const auto want = static_cast<std::size_t>(bytes);
    if (want > 0 && std::fread(out, 1, want, f.get()) != want)
        TESSEL_INVALID_INPUT(path, 0,
                             std::string("read failed: ") +
                                 (std::ferror(f.get()) ? std::strerror(errno) : "file shorter than expected"));
}

std::string read_whole_file(const std::string& path) {
    const std::int64_t size = file_size_bytes(path);
    std::string text(static_cast<std::size_t>(size), '\0');
    read_file_into(path, text.data(), size);
    return text;
}

}  // namespace tessel::io
