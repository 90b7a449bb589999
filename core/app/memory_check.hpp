// Sizes checked before allocating: against the memory this node has and against the range of
// the index type, with the estimate in the message (not std::bad_alloc minutes later).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace tessel::app {

/// Throws OutOfMemoryBudget "INPUT: WHAT needs 96.0 GiB, more than the 23.1 GiB available on
/// this node" when `bytes` exceeds available_memory_bytes() (nothing when that is unknown).
void require_memory(const std::string& input, const std::string& what, double bytes);

/// A memory limit the user gave (bytes per rank) must not exceed what this node has available:
/// else InvalidInput "INPUT: 2.0 TiB is more than the 23.1 GiB available on this node" (a
/// larger limit would only move the failure from here to std::bad_alloc later).
void require_limit_within_node(const std::string& input, double bytes);

/// `count` of WHAT must fit the index type `Index` (and be >= 0): else InvalidInput
/// "INPUT:PLACE: WHAT is COUNT, beyond the largest index 2147483647 (int32)".
void require_index_range(const std::string& input, std::int64_t place, const std::string& what, double count,
                         double largest, const char* index_name);

template <typename Index>
void require_index_range(const std::string& input, std::int64_t place, const std::string& what, double count) {
    require_index_range(input, place, what, count, double(std::numeric_limits<Index>::max()),
                        sizeof(Index) == 4 ? "int32" : "int64");
}

}  // namespace tessel::app
