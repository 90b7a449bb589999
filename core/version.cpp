// The version string, from the one definition CMake passes to this file alone: no header is
// generated into the build folder, so no compile line names the build folder and ccache
// serves the pip build's objects from the main build's (scripts/test-pip.sh).
#include "core/version.hpp"

namespace tessel {
const char* const version = TESSEL_VERSION;
}  // namespace tessel
