// A fresh folder under the system temporary directory for one test, removed with its files at
// the end (shared by the test suites of io, xct and others).
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace tessel::test {

class TempDir {
public:
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "tessel-XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    /// Full path of `name` inside the folder.
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    /// Writes `content` to `name` and returns its full path.
    std::string write(const std::string& name, const std::string& content) const {
        std::ofstream out(file(name), std::ios::binary);
        out << content;
        return file(name);
    }
    /// Writes raw bytes to `name` and returns its full path.
    template <typename T>
    std::string write_binary(const std::string& name, const std::vector<T>& values) const {
        std::ofstream out(file(name), std::ios::binary);
        out.write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size() * sizeof(T)));
        return file(name);
    }
    /// Names of the files in the folder (to check that no temporary file was left).
    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(path_))
            names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

private:
    std::filesystem::path path_;
};

}  // namespace tessel::test
