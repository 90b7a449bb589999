// The generator: RadiX-Net structure of the layers, permutations, image statistics.
#include <catch2/catch.hpp>

#include <set>

#include "apps/spdnn/network/generator.hpp"
#include "apps/spdnn/reference/reference_inference.hpp"
#include "core/error.hpp"

using namespace tessel;
using namespace tessel::spdnn;

TEST_CASE("RadiX-Net layers are J16 ⊗ B_k with 32 per row and column", "[spdnn][generator]") {
    const size_type n = 1024, b = 64;
    CHECK(radix_net_period(1024) == 6);
    CHECK(radix_net_period(4096) == 8);
    CHECK(radix_net_period(65536) == 12);
    for (size_type k : {1, 2, 6, 7, 12}) {
        CAPTURE(k);
        const auto w = radix_net_layer(n, k);
        const size_type s = size_type(1) << ((k - 1) % 6);
        REQUIRE(w.nnz() == 32 * n);
        std::vector<int> col_count(n, 0);
        for (size_type i = 0; i < n; ++i) {
            REQUIRE(w.row_nnz(i) == 32);
            for (size_type e = w.row_ptr()[i]; e < w.row_ptr()[i + 1]; ++e) {
                const size_type j = w.col_idx()[e];
                const size_type d = ((i % b) - (j % b) + b) % b;
                CHECK((d == 0 || d == s));
                CHECK(w.values()[e] == Value(0.0625));
                ++col_count[j];
            }
        }
        for (int c : col_count) REQUIRE(c == 32);
        CHECK(w.sorted());
    }
    CHECK_THROWS_AS(radix_net_layer(1000, 1), InvalidInput);
    CHECK_THROWS_AS(radix_net_layer(16, 1), InvalidInput);
}

TEST_CASE("generated networks: blocks of layers share one row permutation", "[spdnn][generator]") {
    const auto net = generate_network(1024, 13, Value(-0.3), 5);
    REQUIRE(net.layer_count() == 13);
    // Block 1 (layers 1-6) is unpermuted.
    for (size_type k = 0; k < 6; ++k) {
        const auto base = radix_net_layer(1024, k + 1);
        CHECK(net.layers[k].col_idx() == base.col_idx());
    }
    // Layers 7 and 8 use the same permutation: row i of layer 7 has the columns of row p(i)
    // of the base, so the base row it copies is found from its first column.
    auto base_row = [](const Layer& w, size_type i) { return size_type(w.col_idx()[w.row_ptr()[i]]) % 64; };
    const auto& l7 = net.layers[6];
    const auto& l8 = net.layers[7];
    bool permuted = false;
    for (size_type i = 0; i < 1024; ++i) {
        // Base row r of layer 7 (s = 1) has columns {r-1, r} mod 64: first column in group 0 is min.
        const size_type r7 = base_row(l7, i), r8 = base_row(l8, i);
        permuted |= (r7 != i % 64 && r7 != (i % 64 + 63) % 64);
        (void)r8;
    }
    CHECK(permuted);
    // Every layer keeps 32 per column after the row permutation.
    std::vector<int> cc(1024, 0);
    for (auto j : l8.col_idx()) ++cc[j];
    for (int c : cc) REQUIRE(c == 32);
    // Deterministic for a seed.
    CHECK(generate_network(1024, 13, Value(-0.3), 5).layers[12].col_idx() == net.layers[12].col_idx());
    CHECK(generate_network(1024, 13, Value(-0.3), 6).layers[12].col_idx() != net.layers[12].col_idx());
}

TEST_CASE("generated images look like the Challenge's", "[spdnn][generator]") {
    const auto images = generate_images(1024, 400, 3);
    REQUIRE(images.rows() == 400);
    REQUIRE(images.cols() == 1024);
    const double density = double(images.nnz()) / (400.0 * 1024.0);
    CHECK(density > 0.06);
    CHECK(density < 0.16);
    for (auto v : images.values()) REQUIRE(v == 1);
    for (size_type i = 0; i < images.rows(); ++i) REQUIRE(images.row_nnz(i) > 0);
    // The digit sits in the middle: no pixel in the outer two columns (column-major: the first
    // 2·32 features are columns 0 and 1).
    for (auto j : images.col_idx()) {
        REQUIRE(j >= 2 * 32);
        REQUIRE(j < 1024 - 2 * 32);
    }
    CHECK(generate_images(1024, 400, 3).col_idx() == images.col_idx());
    CHECK(generate_images(4096, 3, 3).cols() == 4096);
}

TEST_CASE("generated problems behave like the real network: rows die, some survive", "[spdnn][generator]") {
    const auto net = generate_network(1024, 24, official_bias(1024));
    const auto images = generate_images(1024, 600);
    std::vector<size_type> live;
    ReferenceOptions ro;
    ro.batch_images = 16;
    ro.parallel_batches = true;
    const auto answer = reference_categories(net, images, ro, &live);
    CHECK(live[0] < 600);
    CHECK(live[8] < live[0] / 2);  // most rows die over the first layers
    CHECK(answer.size() > 2);      // and some survive to the end (about 1.7%)
    CHECK(live.back() == static_cast<size_type>(answer.size()));
}
