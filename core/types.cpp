// Names of layouts.
#include "core/types.hpp"

#include <string>

#include "core/error.hpp"

namespace tessel {

std::string_view to_string(Layout layout) {
    return layout == Layout::row_major ? "row_major" : "col_major";
}

}  // namespace tessel
