// Buffered atomic text output.
#include "io/detail/text_writer.hpp"

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace tessel::io::detail {

TextWriter::TextWriter(const std::string& path) : out_(path) {
    file_ = std::fopen(out_.temp_path().c_str(), "wb");
    if (!file_)
        TESSEL_INVALID_INPUT(path, 0, std::string("cannot open for writing: ") + std::strerror(errno));
    buffer_.reserve(capacity);
}

TextWriter::~TextWriter() {
    if (file_) std::fclose(file_);
}

void TextWriter::flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
        TESSEL_INVALID_INPUT(out_.path(), 0, std::string("write failed: ") + std::strerror(errno));
    buffer_.clear();
}

void TextWriter::commit() {
    flush();
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) TESSEL_INVALID_INPUT(out_.path(), 0, std::string("write failed: ") + std::strerror(errno));
    out_.commit();
}

}  // namespace tessel::io::detail
