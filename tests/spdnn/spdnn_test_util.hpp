// Helpers shared by the tessel-spdnn tests: temporary folders and the tiny hand-made network.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "apps/spdnn/network/network.hpp"

namespace tessel::spdnn::test {

/// A fresh folder under the system temp dir, removed with its content on destruction.
class TempDir {
public:
    TempDir() {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("tessel-spdnn-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string str() const { return path_.string(); }
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

inline void write_text(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

inline Layer layer_from(size_type n, std::vector<std::tuple<Index, Index, Value>> entries) {
    Coo<Value, Index> coo;
    coo.rows = coo.cols = n;
    for (auto [i, j, v] : entries) {
        coo.row.push_back(i);
        coo.col.push_back(j);
        coo.values.push_back(v);
    }
    return csr_from_coo(coo, "test layer");
}

/// The hand-made 8-neuron, 3-layer network (bias -1) and 5 images of the tests; the answer
/// is images {1, 4, 5} (worked out by hand in test_network.cpp).
inline Network tiny_network() {
    Network net;
    net.neurons = 8;
    net.bias = -1;
    std::vector<std::tuple<Index, Index, Value>> w1;
    for (Index i = 0; i < 8; ++i) w1.emplace_back(i, i, Value(2));
    w1.emplace_back(0, 1, Value(1));
    net.layers.push_back(layer_from(8, w1));
    net.layers.push_back(layer_from(8, {{0, 4, 3}, {2, 2, 1}, {3, 3, 0.5f}, {7, 6, 1}}));
    net.layers.push_back(layer_from(8, {{4, 0, 1}, {6, 1, 1}}));
    return net;
}

inline Images tiny_images() {
    Coo<Value, Index> coo;
    coo.rows = 5;
    coo.cols = 8;
    auto add = [&](Index i, Index j, Value v) {
        coo.row.push_back(i);
        coo.col.push_back(j);
        coo.values.push_back(v);
    };
    add(0, 0, 1);        // image 1: e0
    add(1, 2, 1);        // image 2: e2
    add(2, 5, 0.25f);    // image 3: 0.25 e5
    add(3, 3, 1);        // image 4: e3 + 20 e7
    add(3, 7, 20);
    add(4, 0, 1);        // image 5: e0 + e4
    add(4, 4, 1);
    return csr_from_coo(coo, "tiny images");
}

}  // namespace tessel::spdnn::test
