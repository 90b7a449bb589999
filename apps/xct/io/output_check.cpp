// Writability of outputs, checked with access(2) before any work is done.
#include "apps/xct/io/output_check.hpp"

#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace tessel::xct {

namespace fs = std::filesystem;

void check_output_file(const std::string& option, const std::string& path) {
    if (!path.empty()) io::check_writable(path, "--" + option);  // one check for every app
}

void check_output_folder(const std::string& option, const std::string& dir) {
    if (dir.empty()) return;
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) TESSEL_INVALID_INPUT(option, 0, dir + " is a file, not a folder");
    fs::create_directories(dir, ec);
    if (ec) TESSEL_INVALID_INPUT(option, 0, "cannot create folder " + dir + ": " + ec.message());
    if (::access(dir.c_str(), W_OK | X_OK) != 0) TESSEL_INVALID_INPUT(option, 0, "folder " + dir + " is not writable");
}

}  // namespace tessel::xct
