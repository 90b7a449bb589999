// Stored tiled-ELL layers of the network cache: the generator's layers read back equal the
// converter's, inference from them gives the resident and the reference answer, other
// options fall back to converting, and damaged layers are refused with exact messages.
#include <catch2/catch.hpp>

#include "apps/spdnn/driver/generate_binary.hpp"
#include "apps/spdnn/driver/inference.hpp"
#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/io/tiled_cache.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "apps/spdnn/reference/reference_inference.hpp"
#include "core/error.hpp"
#include "io/hdf5_file.hpp"
#include "spdnn_test_util.hpp"

using namespace tessel;
using namespace tessel::spdnn;
using tessel::spdnn::test::TempDir;

namespace {

bool same(const PreparedLayer& a, const PreparedLayer& b) {
    const auto &x = a.ell, &y = b.ell;
    return x.rows == y.rows && x.cols == y.cols && x.nnz == y.nnz && x.config.block_rows == y.config.block_rows &&
           x.config.buffer_entries == y.config.buffer_entries && x.buffdispl == y.buffdispl &&
           x.mapdispl == y.mapdispl && x.warpdispl == y.warpdispl && x.map == y.map && x.index == y.index &&
           x.values == y.values && a.order == b.order;
}

// A file holding only /tiled with `layer` as layer 1 of `layers` (the header says so).
void write_tiled_only(const std::string& path, const PreparedLayer& layer, const WeightLayout& layout,
                      size_type n, size_type layers = 1) {
    auto file = io::File::create(path);
    write_tiled_layer(file, 0, layer);
    write_tiled_header(file, n, layers, layout);
    file.commit();
}

PreparedLayer first_layer(size_type n, const WeightLayout& layout) {
    const auto net = generate_network(n, 1, Value(-0.3), 4);
    return LayerConverter(layout).convert(0, net.layers[0]);
}

PreparedLayer read_first(const std::string& path, size_type n, const WeightLayout& layout) {
    const auto file = io::File::open(path);
    return read_tiled_layer(file, 0, n, layout);
}

}  // namespace

TEST_CASE("stored tiled layers read back as the converter makes them", "[spdnn][cache][tiled]") {
    TempDir dir;
    const size_type n = 256, layers = 9;
    for (int reorder : {0, 1}) {
        CAPTURE(reorder);
        const auto layout = weight_layout(n, 64, reorder);
        const auto files = binary_problem_files(dir / ("r" + std::to_string(reorder)), n, layers);
        write_generated_network_cache(files, n, layers, 7, layout);
        const auto net = generate_network(n, layers, Value(-0.3), 7);
        // The CSR part is unchanged (its checksum is checked by the whole read).
        const auto whole = read_network_cache(files.network_cache, n, layers, Value(-0.3));
        CHECK(whole.layers[4].col_idx() == net.layers[4].col_idx());
        const auto probe = probe_stored_tiled(files.network_cache, n, layers, layout);
        CHECK(probe.usable);
        CHECK(probe.why_not.empty());
        LayerConverter convert(layout, [&](size_type k) { return net.layers[k]; });
        const auto file = io::File::open(files.network_cache);
        for (size_type k = 0; k < layers; ++k) {
            CAPTURE(k);
            const auto stored = read_tiled_layer(file, k, n, layout);
            CHECK(same(stored, convert(k)));
            CHECK(stored.order.size() == (reorder ? std::size_t(n) : 0));
        }
    }
}

TEST_CASE("inference from stored tiled layers equals resident inference and the reference",
          "[spdnn][cache][tiled]") {
    TempDir dir;
    const size_type n = 1024, layers = 12;
    const auto net = generate_network(n, layers, official_bias(n), 3);
    const auto images = generate_images(n, 300, 3);
    ReferenceOptions ro;
    ro.parallel_batches = true;
    const auto expected = reference_categories(net, images, ro);
    REQUIRE(expected.size() > 2);
    for (int reorder : {0, 1}) {
        CAPTURE(reorder);
        const auto layout = weight_layout(n, 256, reorder);
        const auto files = binary_problem_files(dir / ("r" + std::to_string(reorder)), n, layers);
        write_generated_network_cache(files, n, layers, 3, layout);
        auto h5 = std::make_shared<io::File>(io::File::open(files.network_cache));
        auto stored = streamed_prepared_weights(
            layers, [h5, n, layout](size_type k) { return read_tiled_layer(*h5, k, n, layout); }, layout, "disk");
        auto resident = resident_weights(net, layout);
        InferenceOptions opt;
        opt.backend = Backend::cpu;
        opt.batch_images = 96;  // several passes over the stored layers
        const auto from_disk = infer(shape_of(net), *stored, images, opt);
        const auto in_memory = infer(shape_of(net), *resident, images, opt);
        CHECK(from_disk.categories == expected);
        CHECK(in_memory.categories == expected);
        CHECK(from_disk.batches == 4);
    }
}

TEST_CASE("other conversion options or no stored layers fall back, saying why", "[spdnn][cache][tiled]") {
    TempDir dir;
    const size_type n = 256, layers = 3;
    const auto files = binary_problem_files(dir.str(), n, layers);
    write_generated_network_cache(files, n, layers, 1, weight_layout(n, 64, 0));
    auto p = probe_stored_tiled(files.network_cache, n, layers, weight_layout(n, 128, 0));
    CHECK_FALSE(p.usable);
    CHECK(p.why_not == "the stored tiled-ELL layers of " + files.network_cache +
                           " were converted with block_rows 64 (this run: 128)");
    p = probe_stored_tiled(files.network_cache, n, layers, weight_layout(n, 64, 1));
    CHECK_FALSE(p.usable);
    CHECK_THAT(p.why_not, Catch::EndsWith("were converted with reorder none (this run: locality)"));
    // A cache written without them (from text files, or generate --no-tiled).
    const auto plain = binary_problem_files(dir / "plain", n, layers);
    write_generated_network_cache(plain, n, layers, 1);
    p = probe_stored_tiled(plain.network_cache, n, layers, weight_layout(n, 64, 0));
    CHECK_FALSE(p.usable);
    CHECK(p.why_not == "the cache " + plain.network_cache + " has no stored tiled-ELL layers");
    // Converting while streaming from that cache gives the stored layers' answer.
    const auto images = generate_images(n, 100, 1);
    const auto layout = weight_layout(n, 64, 0);
    auto converted = streamed_weights(
        layers, [&](size_type k) { return read_cached_layer(plain.network_cache, k); }, layout, "disk");
    auto h5 = std::make_shared<io::File>(io::File::open(files.network_cache));
    auto stored = streamed_prepared_weights(
        layers, [h5, n, layout](size_type k) { return read_tiled_layer(*h5, k, n, layout); }, layout, "disk");
    InferenceOptions opt;
    opt.backend = Backend::cpu;
    const NetworkShape shape{n, layers, Value(-0.3), 32 * n * layers};
    CHECK(infer(shape, *converted, images, opt).categories == infer(shape, *stored, images, opt).categories);
}

TEST_CASE("damaged stored tiled layers are refused naming file, dataset and problem", "[spdnn][cache][tiled]") {
    TempDir dir;
    const size_type n = 256;
    const auto layout = weight_layout(n, 64, 1);
    const auto good = first_layer(n, layout);
    const std::string path = dir / "tiled.h5";
    const std::string at = path + ":/tiled/layer1";

    SECTION("the good layer reads") {
        write_tiled_only(path, good, layout, n);
        CHECK(same(read_first(path, n, layout), good));
    }
    SECTION("checksum mismatch") {
        write_tiled_only(path, good, layout, n);
        {
            auto f = io::File::open_for_update(path);
            const float v = 0.5f;
            f.write_slab<float>("/tiled/layer1/values", {{0}, {1}}, &v);
        }
        CHECK_THROWS_WITH(read_first(path, n, layout),
                          Catch::Contains(at + ": checksum mismatch (the layer was torn or edited)"));
    }
    SECTION("wrong sizes") {
        auto bad = good;
        bad.ell.index.resize(bad.ell.index.size() - 1);
        write_tiled_only(path, bad, layout, n);
        CHECK_THROWS_WITH(read_first(path, n, layout),
                          Catch::Contains(at + "/index: holds " + std::to_string(good.ell.index.size() - 1) +
                                          " entries, expected " + std::to_string(good.ell.index.size())));
    }
    SECTION("a stage longer than the buffer") {
        auto bad = good;
        bad.ell.mapdispl[1] = 300;
        write_tiled_only(path, bad, layout, n);
        CHECK_THROWS_WITH(read_first(path, n, layout),
                          Catch::Contains(at + "/mapdispl: stage 0 spans 0..300, expected 0 to 256 entries"));
    }
    SECTION("a column out of range") {
        auto bad = good;
        bad.ell.map[3] = static_cast<Index>(n + 5);
        write_tiled_only(path, bad, layout, n);
        CHECK_THROWS_WITH(read_first(path, n, layout), Catch::Contains(at + ": map: column 261 at 3 outside 0..255"));
    }
    SECTION("a local index beyond its stage") {
        auto bad = good;
        bad.ell.index[0] = 60000;
        write_tiled_only(path, bad, layout, n);
        CHECK_THROWS_WITH(read_first(path, n, layout),
                          Catch::Contains(at + ": index: local index 60000 at 0 outside the " +
                                          std::to_string(good.ell.mapdispl[1]) + " entries of stage 0"));
    }
    SECTION("an order that is no permutation") {
        auto bad = good;
        bad.order[1] = bad.order[0];
        write_tiled_only(path, bad, layout, n);
        CHECK_THROWS_WITH(read_first(path, n, layout),
                          Catch::Contains(at + "/order: entry 1 (" + std::to_string(good.order[0]) +
                                          ") makes it no permutation of 0..255"));
    }
    SECTION("missing attributes") {
        write_tiled_only(path, good, layout, n);
        {
            auto f = io::File::open_for_update(path);
            f.remove_attribute("/tiled/layer1", "checksum");
            f.remove_attribute("/tiled", "block_rows");
        }
        CHECK_THROWS_WITH(read_first(path, n, layout), Catch::Contains(at + ": attribute 'checksum' not found"));
        CHECK_THROWS_WITH(probe_stored_tiled(path, n, 1, layout),
                          Catch::Contains(path + ":/tiled: attribute 'block_rows' not found (the stored tiled "
                                                 "layers are incomplete)"));
    }
    SECTION("a missing layer, another N") {
        write_tiled_only(path, good, layout, n, 2);
        const auto file = io::File::open(path);
        CHECK_THROWS_WITH(read_tiled_layer(file, 1, n, layout),
                          Catch::Contains(path + ":/tiled/layer2: missing (the stored tiled layers are incomplete)"));
        CHECK_THROWS_WITH(read_tiled_layer(file, 0, 512, weight_layout(512, 64, 1)),
                          Catch::Contains(at + ": is 256 x 256, expected 512 x 512"));
        CHECK_THROWS_WITH(probe_stored_tiled(path, 512, 2, weight_layout(512, 64, 1)),
                          Catch::Contains(path + ":/tiled: holds N = 256, L = 2, the network is N = 512, L = 2"));
    }
    SECTION("streaming rethrows the reader's error") {
        write_tiled_only(path, good, layout, n);
        {
            auto f = io::File::open_for_update(path);
            const float v = 2.0f;
            f.write_slab<float>("/tiled/layer1/values", {{5}, {1}}, &v);
        }
        auto h5 = std::make_shared<io::File>(io::File::open(path));
        auto weights = streamed_prepared_weights(
            1, [h5, n, layout](size_type k) { return read_tiled_layer(*h5, k, n, layout); }, layout, "disk");
        InferenceOptions opt;
        opt.backend = Backend::cpu;
        const NetworkShape shape{n, 1, Value(-0.3), good.ell.nnz};
        CHECK_THROWS_WITH(infer(shape, *weights, generate_images(n, 10, 1), opt),
                          Catch::Contains(at + ": checksum mismatch"));
    }
}
