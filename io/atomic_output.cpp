// Temporary-name-then-rename output files.
#include "io/atomic_output.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace tessel::io {

namespace {
std::atomic<unsigned> temp_counter{0};

/// The pid in "NAME.tmp.<pid>.<n>" when `candidate` is a temporary of NAME, else 0.
long temporary_pid(const std::string& candidate, const std::string& name) {
    const std::string prefix = name + ".tmp.";
    if (candidate.size() <= prefix.size() || candidate.compare(0, prefix.size(), prefix) != 0) return 0;
    const std::string rest = candidate.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos) return 0;
    for (std::size_t i = 0; i < rest.size(); ++i)
        if (i != dot && !std::isdigit(static_cast<unsigned char>(rest[i]))) return 0;
    return std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
}

bool process_runs(long pid) { return pid > 0 && (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }
}  // namespace

AtomicOutput::AtomicOutput(std::string path)
    : path_(std::move(path)),
      temp_(path_ + ".tmp." + std::to_string(getpid()) + "." + std::to_string(temp_counter++)) {
    remove_stale_temporaries(path_);
}

int remove_stale_temporaries(const std::string& path) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const std::string name = target.filename().string();
    std::error_code ec;
    int removed = 0;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const long pid = temporary_pid(it->path().filename().string(), name);
        if (pid > 0 && !process_runs(pid)) {
            std::error_code rm;
            if (fs::remove(it->path(), rm)) ++removed;
        }
    }
    return removed;
}

void check_writable(const std::string& path, const std::string& option) {
    namespace fs = std::filesystem;
    const std::string who = (option.empty() ? "" : option + " ") + path;
    if (path.empty()) TESSEL_INVALID_INPUT(who, 0, "cannot write: empty path");
    const fs::path target(path);
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::error_code ec;
    if (!fs::exists(folder, ec))
        TESSEL_INVALID_INPUT(who, 0, "cannot write: folder " + folder.string() + " does not exist");
    if (!fs::is_directory(folder, ec))
        TESSEL_INVALID_INPUT(who, 0, "cannot write: " + folder.string() + " is not a folder");
    if (fs::is_directory(target, ec)) TESSEL_INVALID_INPUT(who, 0, "cannot write: it is a folder");
    if (access(folder.c_str(), W_OK | X_OK) != 0)
        TESSEL_INVALID_INPUT(who, 0, "cannot write in " + folder.string() + ": " + std::strerror(errno));
}

AtomicOutput::~AtomicOutput() {
    if (!committed_) {
        std::error_code ec;
        std::filesystem::remove(temp_, ec);
    }
}

void AtomicOutput::commit() {
    std::error_code ec;
    std::filesystem::rename(temp_, path_, ec);
    if (ec) TESSEL_INVALID_INPUT(path_, 0, "cannot rename temporary file into place: " + ec.message());
    committed_ = true;
}

void write_bytes_atomically(const std::string& path, const void* data, std::size_t bytes) {
    AtomicOutput out(path);
    std::FILE* f = std::fopen(out.temp_path().c_str(), "wb");
    if (!f) TESSEL_INVALID_INPUT(path, 0, std::string("cannot open for writing: ") + std::strerror(errno));
    const bool written = bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes;
    const int saved_errno = errno;
    if (std::fclose(f) != 0 || !written)
        TESSEL_INVALID_INPUT(path, 0, std::string("write failed: ") + std::strerror(written ? errno : saved_errno));
    out.commit();
}

}  // namespace tessel::io
