// Outputs checked for writability before any work, so that a bad path fails at once and not
// after the run.
#pragma once

#include <string>

namespace tessel::abcd {

/// Creates and removes a probe file next to `path` (its temporary name). Throws InvalidInput
/// "option: path: cannot be written (No such file or directory)" when it cannot. An empty path
/// is no output and passes.
void require_writable(const std::string& path, const std::string& option);

}  // namespace tessel::abcd
