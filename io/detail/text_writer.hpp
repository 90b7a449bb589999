// Buffered text output with std::to_chars, written under a temporary name and renamed on
// commit() (an exception before commit() leaves nothing under the final name).
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

#include "io/atomic_output.hpp"

namespace tessel::io::detail {

class TextWriter {
public:
    /// Opens the temporary file next to `path`. Throws InvalidInput "path: cannot open ...".
    explicit TextWriter(const std::string& path);
    TextWriter(const TextWriter&) = delete;
    TextWriter& operator=(const TextWriter&) = delete;
    ~TextWriter();

    void put(std::string_view text) {
        if (buffer_.size() + text.size() > capacity) flush();
        buffer_.append(text);
    }
    void put(char c) {
        if (buffer_.size() + 1 > capacity) flush();
        buffer_.push_back(c);
    }
    /// Integers in decimal, reals in the shortest form that reads back to the same value.
    template <typename Number>
    void put_number(Number value) {
        static_assert(std::is_arithmetic_v<Number>);
        if (buffer_.size() + 64 > capacity) flush();
        char digits[64];
        const auto result = std::to_chars(digits, digits + sizeof(digits), value);
        buffer_.append(digits, result.ptr);
    }
    /// Flushes, closes and renames into place. Throws InvalidInput on a write error.
    void commit();

private:
    static constexpr std::size_t capacity = std::size_t{4} << 20;
    void flush();

    AtomicOutput out_;
    std::FILE* file_ = nullptr;
    std::string buffer_;
};

}  // namespace tessel::io::detail
