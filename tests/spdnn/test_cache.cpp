// The binary cache: round trip, hits, rebuilds when the sources change or the file is damaged.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "core/error.hpp"
#include "io/graph_challenge.hpp"
#include "spdnn_test_util.hpp"

using namespace tessel;
using namespace tessel::spdnn;
using tessel::spdnn::test::TempDir;

namespace {

bool same(const Csr<Value, Index>& a, const Csr<Value, Index>& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && a.row_ptr() == b.row_ptr() &&
           a.col_idx() == b.col_idx() && a.values() == b.values();
}

void flip_a_byte_near_the_end(const std::string& path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto size = static_cast<std::streamoff>(f.tellg());
    // The data of the last written dataset sits before HDF5's trailing metadata.
    for (std::streamoff at = size / 2; at < size / 2 + 64; ++at) {
        f.seekg(at);
        char c;
        f.read(&c, 1);
        c = static_cast<char>(c ^ 0x5a);
        f.seekp(at);
        f.write(&c, 1);
    }
}

}  // namespace

TEST_CASE("checksum sees every byte", "[spdnn][cache]") {
    std::vector<std::uint8_t> data(3 << 20, 7);
    const auto h = checksum(data.data(), data.size());
    CHECK(checksum(data.data(), data.size()) == h);
    data[(3 << 20) - 1] ^= 1;
    CHECK(checksum(data.data(), data.size()) != h);
    data[(3 << 20) - 1] ^= 1;
    data[12345] ^= 0x80;
    CHECK(checksum(data.data(), data.size()) != h);
    CHECK(checksum(data.data(), 5) != checksum(data.data(), 6));
}

TEST_CASE("network and images cache round trip", "[spdnn][cache]") {
    TempDir dir;
    const auto net = generate_network(64, 5, Value(-0.3), 1);
    const auto images = generate_images(64, 20, 1);
    write_problem(dir.str(), net, images, nullptr);
    const std::string layers = dir / "neuron64";
    const std::string image_file = dir / "sparse-images-64.tsv";

    for (bool in_folder : {false, true}) {
        CAPTURE(in_folder);
        CacheOptions cache;
        if (in_folder) cache.dir = dir / "cachedir";
        CacheReport r;
        const auto first = load_network(layers, 64, 5, Value(-0.3), cache, &r);
        CHECK_FALSE(r.hit);
        CHECK(r.written);
        CHECK(std::filesystem::exists(r.path));
        CHECK(std::filesystem::path(r.path).parent_path() == (in_folder ? cache.dir : layers));
        const auto second = load_network(layers, 64, 5, Value(-0.3), cache, &r);
        CHECK(r.hit);
        REQUIRE(second.layer_count() == 5);
        for (size_type k = 0; k < 5; ++k) {
            CHECK(same(second.layers[k], net.layers[k]));
            CHECK(same(read_cached_layer(r.path, k), net.layers[k]));
        }
        CHECK(second.bias == Value(-0.3));

        CacheReport ri;
        const auto im1 = load_images(image_file, 64, 0, cache, &ri);
        CHECK(ri.written);
        const auto im2 = load_images(image_file, 64, 0, cache, &ri);
        CHECK(ri.hit);
        CHECK(same(im2, images));
        // Another requested count is another cache.
        const auto im3 = load_images(image_file, 64, 30, cache, &ri);
        CHECK_FALSE(ri.hit);
        CHECK(im3.rows() == 30);
    }
}

TEST_CASE("the cache is rebuilt when the TSVs change or the file is damaged", "[spdnn][cache]") {
    TempDir dir;
    auto net = generate_network(64, 3, Value(-0.3), 2);
    write_problem(dir.str(), net, generate_images(64, 10, 2), nullptr);
    const std::string layers = dir / "neuron64";
    CacheOptions cache;
    CacheReport r;
    load_network(layers, 64, 3, Value(-0.3), cache, &r);
    REQUIRE(r.written);

    SECTION("a source file changed") {
        // A different layer 2 (the same pattern with other values), written later.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        auto changed = net.layers[1];
        for (auto& v : changed.values_mut()) v = Value(0.125);
        io::write_layer_tsv(layer_file_name(layers, 64, 2), changed);
        const auto again = load_network(layers, 64, 3, Value(-0.3), cache, &r);
        CHECK_FALSE(r.hit);
        CHECK_THAT(r.note, Catch::Contains("source files changed"));
        CHECK(again.layers[1].values()[0] == Value(0.125));
        load_network(layers, 64, 3, Value(-0.3), cache, &r);
        CHECK(r.hit);
    }
    SECTION("the cache file is damaged") {
        flip_a_byte_near_the_end(r.path);
        const auto again = load_network(layers, 64, 3, Value(-0.3), cache, &r);
        CHECK_FALSE(r.hit);
        CHECK(r.written);
        CHECK_FALSE(r.note.empty());
        CHECK(same(again.layers[2], net.layers[2]));
    }
    SECTION("the cache file is not HDF5 at all") {
        test::write_text(r.path, "garbage");
        load_network(layers, 64, 3, Value(-0.3), cache, &r);
        CHECK_FALSE(r.hit);
        CHECK(r.written);
        CHECK_THROWS_AS(read_network_cache(dir / "nothing.h5", 64, 3, 0), Error);
    }
    SECTION("a cache for another L or N is not used") {
        CHECK_THROWS_WITH(read_network_cache(r.path, 64, 4, 0), Catch::Contains("another L"));
        CHECK_THROWS_WITH(read_network_cache(r.path, 128, 3, 0), Catch::Contains("another N"));
    }
    SECTION("an unwritable cache folder is a note, not an error") {
        CacheOptions bad;
        bad.dir = "/proc/tessel-no-such-dir";
        const auto got = load_network(layers, 64, 3, Value(-0.3), bad, &r);
        CHECK(got.layer_count() == 3);
        CHECK_FALSE(r.written);
        CHECK_THAT(r.note, Catch::Contains("not written"));
    }
    SECTION("disabled") {
        CacheOptions off;
        off.enabled = false;
        load_network(layers, 64, 3, Value(-0.3), off, &r);
        CHECK_FALSE(r.hit);
        CHECK_FALSE(r.written);
        CHECK(r.path.empty());
    }
}
