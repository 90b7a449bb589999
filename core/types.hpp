// Basic index and size types shared by every module.
#pragma once

#include <cstdint>
#include <string_view>

namespace tessel {

/// Sizes, offsets and counts: always 64-bit so that large matrices never overflow.
using size_type = std::int64_t;

/// Storage order of a dense matrix.
enum class Layout { row_major, col_major };

/// Where a kernel runs. `automatic` resolves to cuda when a device is present, else cpu.
enum class Backend { reference, cpu, cuda, automatic };

std::string_view to_string(Layout layout);
std::string_view to_string(Backend backend);

/// Parses "reference", "cpu", "cuda" or "auto"; throws InvalidInput otherwise.
Backend parse_backend(std::string_view name);

}  // namespace tessel
