// The network cache one layer at a time: the streamed checksum equals the whole one, the
// generator's layer-by-layer cache equals the cache of the network in memory, the shape is
// read without the layers, and the layer-outer reference gives the reference's answer.
#include <catch2/catch.hpp>

#include <filesystem>

#include "apps/spdnn/driver/generate_binary.hpp"
#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/io/cache_stream.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "apps/spdnn/reference/reference_inference.hpp"
#include "apps/spdnn/reference/reference_streamed.hpp"
#include "core/error.hpp"
#include "spdnn_test_util.hpp"

using namespace tessel;
using namespace tessel::spdnn;
using tessel::spdnn::test::TempDir;

TEST_CASE("a checksum of pieces equals the checksum of the whole", "[spdnn][cache]") {
    std::vector<std::uint8_t> data((5 << 20) / 2 + 13);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 2654435761u >> 13);
    for (std::size_t piece : {std::size_t(1), std::size_t(1000), std::size_t(1) << 20, std::size_t(3) << 20}) {
        CAPTURE(piece);
        ChecksumStream s;
        for (std::size_t at = 0; at < data.size(); at += piece)
            s.add(data.data() + at, std::min(piece, data.size() - at));
        CHECK(s.value(42) == checksum(data.data(), data.size(), 42));
    }
    ChecksumStream empty;
    CHECK(empty.value(3) == checksum(data.data(), 0, 3));
}

TEST_CASE("the generator's layer-by-layer cache holds generate_network's layers", "[spdnn][cache]") {
    TempDir dir;
    const size_type n = 64, layers = 9;  // period 2: several permuted blocks
    const auto files = binary_problem_files(dir.str(), n, layers);
    write_generated_network_cache(files, n, layers, 5);
    const auto expected = generate_network(n, layers, Value(-0.3), 5);
    // The whole read checks the checksum the writer computed piece by piece.
    const auto net = read_network_cache(files.network_cache, n, layers, Value(-0.3));
    REQUIRE(net.layer_count() == layers);
    for (size_type k = 0; k < layers; ++k) {
        CHECK(net.layers[k].row_ptr() == expected.layers[k].row_ptr());
        CHECK(net.layers[k].col_idx() == expected.layers[k].col_idx());
        CHECK(read_cached_layer(files.network_cache, k).col_idx() == expected.layers[k].col_idx());
    }
    const auto shape = read_network_cache_shape(files.network_cache, n, layers, Value(-0.3));
    CHECK(shape.edges == expected.total_edges());
    CHECK_THROWS_WITH(read_network_cache_shape(files.network_cache, n, layers + 1, Value(-0.3)),
                      Catch::Contains("not a usable network cache: made for another L"));
    // With no text files, load_network reads the generated cache.
    CacheReport r;
    const auto loaded = load_network(files.layer_dir, n, layers, Value(-0.3), CacheOptions{}, &r);
    CHECK(r.hit);
    CHECK(loaded.total_edges() == expected.total_edges());
    CHECK(generated_network_cache(files.layer_dir, n, layers) == files.network_cache);
}

TEST_CASE("the writer refuses layers out of order or of the wrong size", "[spdnn][cache]") {
    TempDir dir;
    const auto net = generate_network(64, 2, Value(-0.3), 1);
    NetworkCacheWriter w(dir / "w.h5", 64, {net.layers[0].nnz(), net.layers[1].nnz()}, "test");
    CHECK_THROWS_AS(w.write_layer(1, net.layers[1]), DimensionMismatch);
    w.write_layer(0, net.layers[0]);
    CHECK_THROWS_AS(w.commit(), DimensionMismatch);
    NetworkCacheWriter small(dir / "s.h5", 64, {5}, "test");
    CHECK_THROWS_AS(small.write_layer(0, net.layers[0]), DimensionMismatch);
}

TEST_CASE("the layer-outer reference gives the reference's categories", "[spdnn][reference]") {
    const auto net = generate_network(1024, 12, official_bias(1024), 3);
    const auto images = generate_images(1024, 300, 3);
    const auto expected = reference_categories(net, images);
    const auto shape = shape_of(net);
    std::vector<size_type> reads;
    auto source = [&](size_type k) {
        reads.push_back(k);
        return net.layers[k];
    };
    CHECK(reference_categories_streamed(shape, source, images, 7) == expected);
    CHECK(reads.size() <= 12);  // each layer at most once (all-dead batches stop early)
    for (std::size_t i = 0; i < reads.size(); ++i) CHECK(reads[i] == static_cast<size_type>(i));
}
