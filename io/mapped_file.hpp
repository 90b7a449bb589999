// A whole file mapped read-only into memory: formats whose bulk is used in place (the xct
// operator cache) read it without copying it into fresh pages.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace tessel::io {

class MappedFile {
public:
    /// Maps `path` (private, read-only; its pages are read ahead). Returns nullptr where the file
    /// cannot be opened; throws InvalidInput "path: cannot map: reason" where it opens but
    /// cannot be mapped.
    static std::shared_ptr<const MappedFile> open(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const unsigned char* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    MappedFile(const unsigned char* data, std::size_t size) : data_(data), size_(size) {}
    const unsigned char* data_;
    std::size_t size_;
};

}  // namespace tessel::io
