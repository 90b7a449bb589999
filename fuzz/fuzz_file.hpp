// The fuzzers' input as a file: the readers take paths (as the programs do), so each input is
// written to a file of this process (in /dev/shm when there) before the reader opens it.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace tessel::fuzz {

/// The readers refuse sizes beyond the available memory before allocating; pinned to 64 MiB
/// here (far under the fuzzer's -malloc_limit_mb, and small enough that a declared size that
/// passes is quick to build under ASan), so that an allocation the limit catches is a
/// size that was not checked.
inline const bool memory_pinned = [] { return setenv("TESSEL_AVAILABLE_MEMORY", "64M", 1) == 0; }();

inline std::string input_file(const std::uint8_t* data, std::size_t size, const char* name = "input") {
    static const std::string folder = [] {
        const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
        const std::string dir = base + "/tessel-fuzz-" + std::to_string(getpid());
        std::filesystem::create_directories(dir);
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all("/dev/shm/tessel-fuzz-" + std::to_string(getpid()), ec);
            std::filesystem::remove_all("/tmp/tessel-fuzz-" + std::to_string(getpid()), ec);
        });
        return dir;
    }();
    const std::string path = folder + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return path;
}

}  // namespace tessel::fuzz
