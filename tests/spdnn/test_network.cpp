// The tiny hand-made network through the reference and the fast inference, the official file
// layout, and every kind of bad input with its file and line.
#include <catch2/catch.hpp>

#include <cmath>

#include "apps/spdnn/driver/inference.hpp"
#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/network/network.hpp"
#include "apps/spdnn/reference/reference_inference.hpp"
#include "core/error.hpp"
#include "io/graph_challenge.hpp"
#include "io/matrix_market.hpp"
#include "spdnn_test_util.hpp"

using namespace tessel;
using namespace tessel::spdnn;
using tessel::spdnn::test::TempDir;
using tessel::spdnn::test::write_text;

TEST_CASE("official bias per N", "[spdnn]") {
    CHECK(official_bias(1024) == Value(-0.30));
    CHECK(official_bias(4096) == Value(-0.35));
    CHECK(official_bias(16384) == Value(-0.40));
    CHECK(official_bias(65536) == Value(-0.45));
    CHECK_THROWS_WITH(official_bias(1000), Catch::Contains("no official bias") && Catch::Contains("--bias"));
}

TEST_CASE("reference inference on the tiny hand-made network", "[spdnn][reference]") {
    const auto net = test::tiny_network();
    const auto images = test::tiny_images();
    // Worked out by hand (bias -1, cap 32):
    // image 1 = e0:        Y1 = e0,            Y2 = 2 e4,  Y3 = 1 e0     -> live
    // image 2 = e2:        Y1 = e2,            Y2 = 0                   -> dead after layer 2
    // image 3 = 0.25 e5:   Y1 = 0                                       -> dead after layer 1
    // image 4 = e3 + 20e7: Y1 = e3 + 32 e7 (39 capped), Y2 = 31 e6, Y3 = 30 e1 -> live
    // image 5 = e0 + e4:   Y1 = e0 + e4,       Y2 = 2 e4,  Y3 = 1 e0     -> live
    const auto y1 = reference_activations(net, images, 1);
    CHECK(y1(0, 0) == 1);
    CHECK(y1(0, 1) == 0);
    CHECK(y1(1, 2) == 1);
    CHECK(y1(2, 5) == 0);
    CHECK(y1(3, 3) == 1);
    CHECK(y1(3, 7) == 32);
    CHECK(y1(4, 4) == 1);
    const auto y2 = reference_activations(net, images, 2);
    CHECK(y2(0, 4) == 2);
    CHECK(y2(3, 6) == 31);
    CHECK(y2(3, 3) == 0);
    const auto y3 = reference_activations(net, images, 3);
    CHECK(y3(0, 0) == 1);
    CHECK(y3(3, 1) == 30);
    CHECK(y3(4, 0) == 1);
    double sum = 0;
    for (size_type i = 0; i < y3.rows(); ++i)
        for (size_type j = 0; j < y3.cols(); ++j) sum += y3(i, j);
    CHECK(sum == 32);

    std::vector<size_type> live;
    const auto answer = reference_categories(net, images, {}, &live);
    CHECK(answer == std::vector<std::int64_t>{1, 4, 5});
    CHECK(live == std::vector<size_type>{4, 3, 3});
}

TEST_CASE("fast inference on the tiny network equals the hand-worked answer", "[spdnn]") {
    const auto net = test::tiny_network();
    const auto images = test::tiny_images();
    for (auto kernel : {KernelChoice::fused, KernelChoice::core})
        for (bool compaction : {true, false})
            for (int r : {0, 8, 16}) {
                CAPTURE(to_string(kernel), compaction, r);
                InferenceOptions opt;
                opt.backend = Backend::cpu;
                opt.kernel = kernel;
                opt.compaction = compaction;
                opt.register_factor = r;
                const auto result = infer(net, images, opt);
                CHECK(result.categories == std::vector<std::int64_t>{1, 4, 5});
                REQUIRE(result.layers.size() == 3);
                CHECK(result.layers[0].live_rows == 4);
                CHECK(result.layers[1].live_rows == 3);
                CHECK(result.layers[2].live_rows == 3);
                CHECK(result.images == 5);
                CHECK(result.edges == 9 + 4 + 2);
            }
}

TEST_CASE("a positive bias turns compaction off and still gives the reference answer", "[spdnn]") {
    auto net = test::tiny_network();
    net.bias = Value(0.5);
    const auto images = test::tiny_images();
    const auto expected = reference_categories(net, images);
    CHECK(expected.size() == 5);  // zero rows become 0.5 everywhere: all live
    InferenceOptions opt;
    opt.backend = Backend::cpu;
    const auto result = infer(net, images, opt);
    CHECK_FALSE(result.compaction);
    CHECK(result.categories == expected);
}

namespace {

// Writes the tiny problem in the official layout below dir.
void write_tiny(const TempDir& dir) {
    const auto net = test::tiny_network();
    std::filesystem::create_directories(dir / "neuron8");
    for (size_type k = 0; k < 3; ++k)
        io::write_layer_tsv(layer_file_name(dir / "neuron8", 8, k + 1), net.layers[k]);
    io::write_images_tsv(dir / "sparse-images-8.tsv", test::tiny_images());
    io::write_categories(dir / "neuron8-l3-categories.tsv", {1, 4, 5});
}

std::string bad_message(const std::function<void()>& f) {
    try {
        f();
    } catch (const InvalidInput& e) {
        return e.message();
    }
    return "no InvalidInput thrown";
}

}  // namespace

TEST_CASE("the official layout round trip through files", "[spdnn][files]") {
    TempDir dir;
    write_tiny(dir);
    const auto paths = problem_paths(dir.str(), 8, 3);
    CHECK(paths.layer_dir == dir / "neuron8");
    CHECK(paths.images == dir / "sparse-images-8.tsv");
    CHECK(paths.categories == dir / "neuron8-l3-categories.tsv");
    // The neuron folder itself works too.
    CHECK(problem_paths(dir / "neuron8", 8, 3).images == paths.images);
    CHECK(problem_paths(dir / "neuron8/", 8, 3).images == paths.images);

    const auto net = read_network(paths.layer_dir, 8, 3, -1);
    const auto images = read_images(paths.images, 8);
    CHECK(images.rows() == 5);  // the count is the largest id in use
    CHECK(read_images(paths.images, 8, 7).rows() == 7);
    const auto truth = read_categories(paths.categories, 5);
    InferenceOptions opt;
    opt.backend = Backend::cpu;
    CHECK(infer(net, images, opt).categories == truth);

    // Matrix Market layers are accepted when no TSV exists.
    std::filesystem::remove(layer_file_name(paths.layer_dir, 8, 2));
    io::write_matrix_market(paths.layer_dir + "/n8-l2.mtx", test::tiny_network().layers[1]);
    CHECK(layer_file(paths.layer_dir, 8, 2, 3) == paths.layer_dir + "/n8-l2.mtx");
    CHECK(infer(read_network(paths.layer_dir, 8, 3, -1), images, opt).categories == truth);
}

TEST_CASE("bad inputs: one clear error with file and line", "[spdnn][files][bad]") {
    TempDir dir;
    write_tiny(dir);
    const std::string layer2 = dir / "neuron8/n8-l2.tsv";
    const std::string images = dir / "sparse-images-8.tsv";

    SECTION("malformed line") {
        write_text(layer2, "1\t5\t3\n3\t3\n");
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }),
                   Catch::Contains(layer2 + ":2:"));
        write_text(layer2, "1\t5\t3\n3\tx\t1\n");
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }),
                   Catch::Contains(layer2 + ":2:"));
    }
    SECTION("index out of range or zero") {
        write_text(layer2, "1\t5\t3\n9\t3\t1\n");
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }),
                   Catch::Contains(layer2 + ":2:") && Catch::Contains("input neuron 9 outside 1..8"));
        write_text(layer2, "1\t0\t3\n");
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }),
                   Catch::Contains(layer2 + ":1:") && Catch::Contains("output neuron 0"));
    }
    SECTION("weight not finite") {
        write_text(layer2, "1\t5\t3\n3\t3\tnan\n");
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }), Catch::Contains(layer2 + ":2:"));
        write_text(layer2, "1\t5\tinf\n");
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }), Catch::Contains(layer2 + ":1:"));
    }
    SECTION("a layer of a different N") {
        write_text(layer2, "1\t2\t3\n3\t3\t1\n");  // neurons 1..3 only: a small network's layer
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }),
                   Catch::Contains(layer2) && Catch::Contains("different network"));
        write_text(layer2, "1\t5\t3\n3\t16\t1\n");  // a larger network's layer
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }),
                   Catch::Contains(layer2 + ":2:") && Catch::Contains("outside 1..8"));
    }
    SECTION("missing layer file") {
        std::filesystem::remove(layer2);
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 3, -1); }),
                   Catch::Contains(layer2) && Catch::Contains("missing layer file (layer 2 of 3)"));
        CHECK_THAT(bad_message([&] { read_network(dir / "neuron8", 8, 4, -1); }),
                   Catch::Contains("missing layer file"));
        CHECK_THAT(bad_message([&] { read_network(dir / "nowhere", 8, 3, -1); }), Catch::Contains("not found"));
    }
    SECTION("image index beyond the count") {
        write_text(images, "1\t1\t1\n6\t2\t1\n");
        CHECK_THAT(bad_message([&] { read_images(images, 8, 5); }),
                   Catch::Contains(images + ":2:") && Catch::Contains("image 6 outside 1..5"));
        write_text(images, "1\t1\t1\n60001\t2\t1\n");
        CHECK_THAT(bad_message([&] { read_images(images, 8); }), Catch::Contains("outside 1..60000"));
        write_text(images, "1\t9\t1\n");
        CHECK_THAT(bad_message([&] { read_images(images, 8); }), Catch::Contains(images + ":1:"));
    }
    SECTION("categories not ascending") {
        const std::string cats = dir / "cats.tsv";
        write_text(cats, "1\n4\n3\n");
        CHECK_THAT(bad_message([&] { read_categories(cats, 5); }),
                   Catch::Contains(cats + ":3:") && Catch::Contains("ascending"));
        write_text(cats, "1\n9\n");
        CHECK_THAT(bad_message([&] { read_categories(cats, 5); }), Catch::Contains(cats + ":2:"));
        write_text(cats, "0\n");
        CHECK_THAT(bad_message([&] { read_categories(cats, 5); }), Catch::Contains(cats + ":1:"));
    }
    SECTION("errors come through the cache path too") {
        CacheOptions cache;
        cache.dir = dir / "cache";
        write_text(layer2, "1\t5\t3\n3\t3\t-inf\n");
        CHECK_THAT(bad_message([&] { load_network(dir / "neuron8", 8, 3, -1, cache); }),
                   Catch::Contains(layer2 + ":2:"));
        write_text(images, "1\t1\t1\n0\t2\t1\n");
        CHECK_THAT(bad_message([&] { load_images(images, 8, 0, cache); }), Catch::Contains(images + ":2:"));
    }
}
