// Sizes against memory and index range, before allocating.
#include "core/app/memory_check.hpp"

#include <cmath>
#include <cstdio>

#include "core/app/byte_size.hpp"
#include "core/app/machine.hpp"

namespace tessel::app {

void require_memory(const std::string& input, const std::string& what, double bytes) {
    const double available = available_memory_bytes();
    if (available > 0 && !(bytes <= available))
        TESSEL_THROW(OutOfMemoryBudget, input + ": " + what + " needs " + format_bytes(bytes) + ", more than the " +
                                            format_bytes(available) + " available on this node");
}

void require_limit_within_node(const std::string& input, double bytes) {
    const double available = available_memory_bytes();
    if (available > 0 && bytes > available)
        TESSEL_INVALID_INPUT(input, 0, format_bytes(bytes) + " is more than the " + format_bytes(available) +
                                           " available on this node");
}

void require_index_range(const std::string& input, std::int64_t place, const std::string& what, double count,
                         double largest, const char* index_name) {
    char text[160];
    if (!(count >= 0) || !(count <= largest)) {
        std::snprintf(text, sizeof text, "%s is %.0f, beyond the largest index %.0f (%s)", what.c_str(), count,
                      largest, index_name);
        TESSEL_INVALID_INPUT(input, place, text);
    }
}

}  // namespace tessel::app
