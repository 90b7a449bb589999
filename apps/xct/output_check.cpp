// Writability of outputs, checked with access(2) before any work is done.
#include "apps/xct/output_check.hpp"

#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"

namespace tessel::xct {

namespace fs = std::filesystem;

void check_output_file(const std::string& option, const std::string& path) {
    if (path.empty()) return;
    std::error_code ec;
    if (fs::is_directory(path, ec)) TESSEL_INVALID_INPUT(option, 0, "cannot write " + path + ": it is a folder");
    const fs::path parent = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    if (!fs::is_directory(parent, ec))
        TESSEL_INVALID_INPUT(option, 0, "cannot write " + path + ": folder " + parent.string() + " does not exist");
    if (::access(parent.c_str(), W_OK | X_OK) != 0)
        TESSEL_INVALID_INPUT(option, 0, "cannot write " + path + ": folder " + parent.string() + " is not writable");
    if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
        TESSEL_INVALID_INPUT(option, 0, "cannot write " + path + ": the file is read-only");
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
