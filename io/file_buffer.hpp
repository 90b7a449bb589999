// Whole files read into memory, for parsers that work on one contiguous buffer.
#pragma once

#include <cstdint>
#include <string>

namespace tessel::io {

/// Size of the file at `path` in bytes. Throws InvalidInput "path: cannot open: reason".
std::int64_t file_size_bytes(const std::string& path);

/// The whole content of `path`. Throws InvalidInput "path: cannot open: reason" or
/// "path: read failed: reason".
std::string read_whole_file(const std::string& path);

/// Reads exactly `bytes` bytes of `path` into `out` (the caller checked the size).
/// Throws InvalidInput as read_whole_file.
void read_file_into(const std::string& path, void* out, std::int64_t bytes);

}  // namespace tessel::io
