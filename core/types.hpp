// Basic index and size types shared by every module.
#pragma once

#include <cstdint>
#include <string_view>

namespace tessel {

/// Sizes, offsets and counts: always 64-bit so that large matrices never overflow.
using size_type = std::int64_t;

/// Storage order of a dense matrix.
enum class Layout { row_major, col_major };

std::string_view to_string(Layout layout);

}  // namespace tessel

// Backend lives in its own header; most files that name a layout name a backend too.
#include "core/backend.hpp"
