// Outputs written under a temporary name and renamed into place only when complete.
#pragma once

#include <cstddef>
#include <string>

namespace tessel::io {

/// A temporary path next to `path` ("path.tmp.<pid>.<n>"); commit() renames it onto `path`.
/// Destroyed without commit() (an error, an exception), the temporary file is removed, so an
/// interrupted writer never leaves a truncated file under the final name. A killed writer
/// cannot remove it: the next AtomicOutput of the same path removes the temporaries of `path`
/// whose process no longer runs (remove_stale_temporaries).
class AtomicOutput {
public:
    explicit AtomicOutput(std::string path);
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    ~AtomicOutput();

    const std::string& path() const { return path_; }
    /// Where the writer puts its bytes before commit().
    const std::string& temp_path() const { return temp_; }
    /// Renames the temporary file onto path(). Throws InvalidInput "path: cannot rename ...".
    void commit();

private:
    std::string path_;
    std::string temp_;
    bool committed_ = false;
};

/// Throws InvalidInput "OPTION PATH: cannot write: <reason>" unless `path` can be created or
/// replaced: its folder exists and is writable, and `path` is not a folder. For checking
/// outputs before hours of work rather than after.
void check_writable(const std::string& path, const std::string& option);

/// Removes "path.tmp.<pid>.<n>" files whose process <pid> no longer runs on this machine
/// (left by a killed writer); returns how many were removed.
int remove_stale_temporaries(const std::string& path);

/// Writes `bytes` bytes from `data` to `path` atomically. Throws InvalidInput naming the
/// path when it cannot be opened, written or renamed.
void write_bytes_atomically(const std::string& path, const void* data, std::size_t bytes);

}  // namespace tessel::io
