// Graph Challenge TSV: layer, images and categories round trips and each bad input's message.
#include <catch2/catch.hpp>

#include <sstream>

#include "io/graph_challenge.hpp"
#include "io_test_helpers.hpp"

using namespace tessel;
using namespace tessel::io;
using tessel::io::test::invalid_input;
using tessel::io::test::TempDir;

TEST_CASE("graph challenge layer file in the real format", "[io][graph_challenge]") {
    TempDir dir;
    // Row = input neuron i, column = output neuron j, as in n1024-l1.tsv.
    const auto path = dir.write("l1.tsv", "1\t2\t6.250000e-02\n4\t1\t6.250000e-02\n1\t3\t-1.5\n3\t3\t1\n\n\n");
    const auto w = read_layer_tsv<float, std::int32_t>(path, 4);
    CHECK(w.rows() == 4);
    CHECK(w.cols() == 4);
    CHECK(w.row_ptr() == std::vector<size_type>{0, 2, 2, 3, 4});
    CHECK(w.col_idx() == std::vector<std::int32_t>{1, 2, 2, 0});
    CHECK(w.values() == std::vector<float>{0.0625f, -1.5f, 1.0f, 0.0625f});
}

TEMPLATE_TEST_CASE("graph challenge round trips", "[io][graph_challenge]", (std::pair<double, std::int32_t>),
                   (std::pair<float, std::int64_t>)) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    TempDir dir;
    const Csr<V, I> layer(3, 3, {0, 2, 3, 4}, {0, 2, 1, 0}, {V(0.0625), V(0.0625), V(1) / V(3), V(-2)});
    write_layer_tsv(dir.file("l.tsv"), layer);
    const auto w = read_layer_tsv<V, I>(dir.file("l.tsv"), 3);
    CHECK(w.row_ptr() == layer.row_ptr());
    CHECK(w.col_idx() == layer.col_idx());
    CHECK(w.values() == layer.values());

    const Csr<V, I> images(2, 5, {0, 3, 4}, {0, 1, 4, 2}, {V(1), V(1), V(1), V(1)});
    write_images_tsv(dir.file("images.tsv"), images);
    const auto y = read_images_tsv<V, I>(dir.file("images.tsv"), 2, 5);
    CHECK(y.rows() == 2);
    CHECK(y.cols() == 5);
    CHECK(y.row_ptr() == images.row_ptr());
    CHECK(y.col_idx() == images.col_idx());
    CHECK(y.values() == images.values());

    write_categories(dir.file("cat.tsv"), {1, 5, 60000});
    CHECK(read_categories(dir.file("cat.tsv")) == std::vector<std::int64_t>{1, 5, 60000});
    CHECK(dir.listing() == std::vector<std::string>{"cat.tsv", "images.tsv", "l.tsv"});
}

TEST_CASE("graph challenge readers reject bad lines with file, line and range", "[io][graph_challenge]") {
    TempDir dir;
    auto layer = [&](const std::string& text) {
        const auto path = dir.write("l.tsv", text);
        return invalid_input([&] { read_layer_tsv<float, std::int32_t>(path, 1024); });
    };
    const std::string l = dir.file("l.tsv");
    CHECK(layer("1\t1\t0.0625\n2\t1\n") == l + ":2: expected 3 columns, found 2");
    CHECK(layer("1\t1\t0.0625\t7\n") == l + ":1: expected 3 columns, found 4");
    CHECK(layer("1\t1\t0.0625 junk\n") == l + ":1: expected 3 columns, found 4");
    CHECK(layer("1\t1\t0.0625\n1\tb\t0.0625\n") == l + ":2: output neuron 'b' is not an integer");
    CHECK(layer("1.5\t1\t0.0625\n") == l + ":1: input neuron '1.5' is not an integer");
    CHECK(layer("1\t1\tabc\n") == l + ":1: value 'abc' is not a number");
    CHECK(layer("0\t1\t0.0625\n") == l + ":1: input neuron 0 outside 1..1024");
    CHECK(layer("1\t1\t1\n1\t1025\t0.0625\n") == l + ":2: output neuron 1025 outside 1..1024");
    CHECK(layer("1\t-3\t0.0625\n") == l + ":1: output neuron -3 outside 1..1024");
    CHECK(layer("1\t1\tnan\n") == l + ":1: value 'nan' is not finite");
    CHECK(layer("1\t1\tinf\n") == l + ":1: value 'inf' is not finite");
    CHECK(layer("1\t1\t1\n\n2\t2\t1\n") == l + ":2: empty line");
    CHECK(layer("1\t1\t1\n2\t2\t1\n  \n3 3 1 x\n") == l + ":3: empty line");
    CHECK(layer("\n\n") == l + ": file is empty");
    CHECK(layer("1\t1\t1\n99999999999999999999\t1\t1\n") ==
          l + ":2: input neuron '99999999999999999999' is too large");

    const auto images = dir.write("images.tsv", "1\t1\t1\n60001\t3\t1\n");
    CHECK(invalid_input([&] { read_images_tsv<float, std::int32_t>(images, 60000, 1024); }) ==
          images + ":2: image 60001 outside 1..60000");
    const auto images2 = dir.write("images2.tsv", "1\t1025\t1\n");
    CHECK(invalid_input([&] { read_images_tsv<float, std::int32_t>(images2, 60000, 1024); }) ==
          images2 + ":1: neuron 1025 outside 1..1024");
    CHECK(invalid_input([&] { read_layer_tsv<float, std::int32_t>(dir.file("none.tsv"), 4); }) ==
          dir.file("none.tsv") + ": cannot open: No such file or directory");
}

TEST_CASE("graph challenge categories", "[io][graph_challenge]") {
    TempDir dir;
    const auto path = dir.write("c.tsv", "3\n17\r\n42\n\n");
    CHECK(read_categories(path) == std::vector<std::int64_t>{3, 17, 42});
    CHECK(read_categories(dir.write("empty.tsv", "")).empty());

    auto message = [&](const std::string& text, size_type num_images = 0) {
        const auto p = dir.write("c.tsv", text);
        return invalid_input([&] { read_categories(p, num_images); });
    };
    const std::string c = dir.file("c.tsv");
    CHECK(message("1\n5\n5\n") == c + ":3: category 5 after 5, expected strictly ascending ids");
    CHECK(message("1\n7\n5\n") == c + ":3: category 5 after 7, expected strictly ascending ids");
    CHECK(message("0\n") == c + ":1: category 0 is not a positive image id");
    CHECK(message("1\n2 3\n") == c + ":2: expected 1 column, found 2");
    CHECK(message("1\nx\n") == c + ":2: category 'x' is not an integer");
    CHECK(message("1\n\n4\n") == c + ":2: empty line");
    CHECK(message("1\n60001\n", 60000) == c + ":2: category 60001 outside 1..60000");
    CHECK(invalid_input([&] { write_categories(dir.file("w.tsv"), {2, 1}); }) ==
          dir.file("w.tsv") + ":2: category 1 after 2, expected strictly ascending ids");
}

TEST_CASE("graph challenge reads a large layer in parallel chunks", "[io][graph_challenge]") {
    TempDir dir;
    const std::int64_t neurons = 4096;
    std::ostringstream text;
    for (std::int64_t i = 1; i <= neurons; ++i)
        for (std::int64_t k = 0; k < 32; ++k) text << i << '\t' << (i + 97 * k) % neurons + 1 << "\t6.250000e-02\n";
    const std::string good = text.str();
    REQUIRE(good.size() > std::size_t{2} << 20);
    const auto path = dir.write("big.tsv", good);
    const auto w = read_layer_tsv<float, std::int32_t>(path, neurons);
    CHECK(w.nnz() == 32 * neurons);
    CHECK(w.max_row_length() == 32);
    CHECK(w.row_nnz(neurons - 1) == 32);
    CHECK(w.values()[12345] == 0.0625f);

    std::string bad = good;
    bad.replace(bad.rfind("6.250000e-02"), 12, "6.250000e+99");
    const auto bad_path = dir.write("bad.tsv", bad);
    CHECK(invalid_input([&] { read_layer_tsv<float, std::int32_t>(bad_path, neurons); }) ==
          bad_path + ":" + std::to_string(32 * neurons) + ": value '6.250000e+99' does not fit in float");
}
