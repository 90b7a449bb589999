// Temporary-name-then-rename output files.
#include "io/atomic_output.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace tessel::io {

namespace {
std::atomic<unsigned> temp_counter{0};
}  // namespace

AtomicOutput::AtomicOutput(std::string path)
    : path_(std::move(path)),
      temp_(path_ + ".tmp." + std::to_string(getpid()) + "." + std::to_string(temp_counter++)) {}

AtomicOutput::~AtomicOutput() {
    if (!committed_) {
        std::error_code ec;
        std::filesystem::remove(temp_, ec);
    }
}

void AtomicOutput::commit() {
    std::error_code ec;
    std::filesystem::rename(temp_, path_, ec);
    if (ec) TESSEL_INVALID_INPUT(path_, 0, "cannot rename temporary file into place: " + ec.message());
    committed_ = true;
}

void write_bytes_atomically(const std::string& path, const void* data, std::size_t bytes) {
    AtomicOutput out(path);
    std::FILE* f = std::fopen(out.temp_path().c_str(), "wb");
    if (!f) TESSEL_INVALID_INPUT(path, 0, std::string("cannot open for writing: ") + std::strerror(errno));
    const bool written = bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes;
    const int saved_errno = errno;
    if (std::fclose(f) != 0 || !written)
        TESSEL_INVALID_INPUT(path, 0, std::string("write failed: ") + std::strerror(written ? errno : saved_errno));
    out.commit();
}

}  // namespace tessel::io
