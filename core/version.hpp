// The version of this tessel library (the project's version in the top-level CMakeLists.txt).
#pragma once

namespace tessel {
/// "MAJOR.MINOR.PATCH", as tesselConfigVersion.cmake says it.
extern const char* const version;
}  // namespace tessel
