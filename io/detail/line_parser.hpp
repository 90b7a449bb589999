// Fast parsing of line-oriented text tables (fields split at spaces and tabs), chunked over
// OpenMP threads; a bad line becomes InvalidInput "file:line: what".
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

namespace tessel::io::detail {

/// Thrown by a line parser: what is wrong with the line (the driver adds file and line).
struct LineError {
    std::string what;
};

/// True for the field separators of every text format here.
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

/// True when `line` holds nothing but spaces, tabs and carriage returns.
inline bool is_blank_line(std::string_view line) {
    for (char c : line)
        if (!is_blank(c) && c != '\r') return false;
    return true;
}

/// Splits `line` at runs of spaces and tabs; stores at most `max` fields and returns how many
/// fields the line has (so that callers can report "found 4").
inline int split_fields(std::string_view line, std::string_view* fields, int max) {
    int count = 0;
    std::size_t i = 0;
    const std::size_t n = line.size();
    while (true) {
        while (i < n && is_blank(line[i])) ++i;
        if (i == n) break;
        const std::size_t start = i;
        while (i < n && !is_blank(line[i])) ++i;
        if (count < max) fields[count] = line.substr(start, i - start);
        ++count;
    }
    return count;
}

/// A field shown in a message: quoted, and cut short when it is long.
inline std::string quoted(std::string_view token) {
    if (token.size() > 40) return "'" + std::string(token.substr(0, 40)) + "...'";
    return "'" + std::string(token) + "'";
}

/// Parses a whole field as a decimal integer. Throws LineError "NAME 'x' is not an integer".
inline std::int64_t parse_integer(std::string_view token, const char* name) {
    if (!token.empty() && token.front() == '+') token.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec == std::errc::result_out_of_range)
        throw LineError{std::string(name) + " " + quoted(token) + " is too large"};
    if (ec != std::errc() || end != token.data() + token.size() || token.empty())
        throw LineError{std::string(name) + " " + quoted(token) + " is not an integer"};
    return value;
}

/// Parses a whole field as a finite real number of type ValueType (underflow gives the nearest
/// representable value). Throws LineError "value 'x' is not a number" / "... is not finite" /
/// "... does not fit in float".
template <typename ValueType>
ValueType parse_real(std::string_view token) {
    static_assert(std::is_floating_point_v<ValueType>);
    std::string_view digits = token;
    if (!digits.empty() && digits.front() == '+' && digits.size() > 1 && digits[1] != '-')
        digits.remove_prefix(1);
    ValueType value{};
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value,
                                           std::chars_format::general);
    if (ec == std::errc::invalid_argument || end != digits.data() + digits.size() || digits.empty())
        throw LineError{"value " + quoted(token) + " is not a number"};
    if (ec == std::errc::result_out_of_range) {
        // from_chars refuses both overflow and underflow; strtod tells them apart.
        const std::string copy(digits);
        const long double wide = std::strtold(copy.c_str(), nullptr);
        if (std::isinf(wide) || std::fabs(wide) > std::numeric_limits<ValueType>::max())
            throw LineError{"value " + quoted(token) + " does not fit in " +
                            (std::is_same_v<ValueType, float> ? "float" : "double")};
        value = static_cast<ValueType>(wide);
    }
    if (!std::isfinite(value)) throw LineError{"value " + quoted(token) + " is not finite"};
    return value;
}

/// Number of lines of `text` as an editor counts them (a last line without '\n' counts).
inline std::int64_t count_lines(std::string_view text) {
    const auto newlines = static_cast<std::int64_t>(std::count(text.begin(), text.end(), '\n'));
    return newlines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

/// Calls `parse(line, records)` for every line of `body` (without '\n' and a trailing '\r'),
/// in parallel over chunks of lines; returns the records of every chunk in file order.
/// `first_line` is the line number of body's first line in the file named `input`.
/// A LineError becomes InvalidInput "input:line: what" for the first bad line of the file.
template <typename Record, typename Parse>
std::vector<std::vector<Record>> parse_lines(const std::string& input, std::string_view body,
                                             std::int64_t first_line, Parse parse) {
    const std::size_t size = body.size();
    constexpr std::size_t min_chunk = std::size_t{1} << 20;
    const int threads = omp_get_max_threads();
    const std::size_t chunks =
        size < 2 * min_chunk ? 1 : std::min<std::size_t>(size / min_chunk, std::size_t(threads) * 8);
    std::vector<std::size_t> bounds(chunks + 1, size);
    bounds[0] = 0;
    for (std::size_t k = 1; k < chunks; ++k) {
        std::size_t b = std::max(bounds[k - 1], size / chunks * k);
        const void* nl = b < size ? std::memchr(body.data() + b, '\n', size - b) : nullptr;
        bounds[k] = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - body.data()) + 1 : size;
    }

    std::vector<std::vector<Record>> records(chunks);
    std::vector<std::size_t> error_at(chunks, std::string::npos);
    std::vector<std::string> error_what(chunks);
    std::vector<std::exception_ptr> failure(chunks);
    std::atomic<std::size_t> first_error{std::string::npos};

#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (std::size_t k = 0; k < chunks; ++k) {
        // Chunks after a known error cannot hold the first one.
        if (first_error.load(std::memory_order_relaxed) < bounds[k]) continue;
        std::size_t pos = bounds[k];
        const std::size_t end = bounds[k + 1];
        auto& out = records[k];
        out.reserve((end - pos) / 16);
        try {
            while (pos < end) {
                const void* nl = std::memchr(body.data() + pos, '\n', end - pos);
                const std::size_t stop =
                    nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - body.data()) : end;
                std::string_view line(body.data() + pos, stop - pos);
                if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
                try {
                    parse(line, out);
                } catch (LineError& e) {
                    error_at[k] = pos;
                    error_what[k] = std::move(e.what);
                    break;
                }
                pos = stop + 1;
            }
        } catch (...) {
            error_at[k] = pos;
            failure[k] = std::current_exception();
        }
        if (error_at[k] != std::string::npos) {
            std::size_t seen = first_error.load();
            while (error_at[k] < seen && !first_error.compare_exchange_weak(seen, error_at[k])) {
            }
        }
    }

    for (std::size_t k = 0; k < chunks; ++k) {
        if (error_at[k] == std::string::npos) continue;
        if (failure[k]) std::rethrow_exception(failure[k]);
        const std::int64_t line =
            first_line + std::count(body.data(), body.data() + error_at[k], '\n');
        TESSEL_INVALID_INPUT(input, line, error_what[k]);
    }
    return records;
}

/// Offsets of each chunk's records in the concatenation, and the total (last element).
template <typename Record>
std::vector<std::size_t> chunk_offsets(const std::vector<std::vector<Record>>& chunks) {
    std::vector<std::size_t> offsets(chunks.size() + 1, 0);
    for (std::size_t k = 0; k < chunks.size(); ++k) offsets[k + 1] = offsets[k] + chunks[k].size();
    return offsets;
}

}  // namespace tessel::io::detail
