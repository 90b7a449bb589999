// The fast inference against the reference: the fused kernel layer by layer, every register
// factor, tiled ELL with several stages, compaction on and off, the core kernel, streamed
// weights.
#include <catch2/catch.hpp>

#include <random>

#include "apps/spdnn/driver/inference.hpp"
#include "apps/spdnn/engines/engine.hpp"
#include "apps/spdnn/engines/fused_layer_kernels.hpp"
#include "apps/spdnn/engines/tile_activations.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "apps/spdnn/network/layer_weights.hpp"
#include "apps/spdnn/reference/reference_inference.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm_kernels.hpp"

using namespace tessel;
using namespace tessel::spdnn;

namespace {

const Network& small_network() {
    static const Network net = generate_network(1024, 14, official_bias(1024), 11);
    return net;
}
const Images& small_images() {
    static const Images images = generate_images(1024, 300, 11);
    return images;
}
const std::vector<std::int64_t>& small_answer() {
    static const std::vector<std::int64_t> answer = [] {
        ReferenceOptions ro;
        ro.parallel_batches = true;
        return reference_categories(small_network(), small_images(), ro);
    }();
    return answer;
}

}  // namespace

TEST_CASE("fused engine layer by layer equals the reference SpMM + epilogue exactly", "[spdnn][kernel]") {
    const auto& net = small_network();
    const auto& images = small_images();
    const auto ep = Epilogue<Value>::bias_relu_cap(net.bias, activation_cap);
    const auto expected_after = reference_activations_per_layer(net, images);
    for (auto [r, compaction, reorder] : {std::tuple{16, true, false}, std::tuple{32, false, false},
                                          std::tuple{32, true, true}, std::tuple{64, true, true}}) {
        {
            CAPTURE(r, compaction, reorder);
            auto weights = resident_weights(net, weight_layout(1024, reorder ? 128 : 256, reorder));
            auto engine = make_fused_engine({1024, r, compaction, true});
            std::vector<std::int64_t> rows(images.rows());
            for (size_type i = 0; i < images.rows(); ++i) rows[i] = i;
            for (size_type k = 0; k < net.layer_count(); ++k) {
                CAPTURE(k);
                LayerTimes times;
                const auto& prepared = weights->get(k);
                const auto& wt = prepared.ell;
                if (k == 0)
                    engine->first_layer(wt, images, rows, ep, times);
                else
                    engine->layer(k, wt, ep, times);
                const auto& expected = expected_after[k];
                const auto ids = engine->ids();
                std::vector<Value> got(ids.size() * 1024);
                engine->export_rows(0, static_cast<size_type>(ids.size()), got.data());
                std::vector<char> present(images.rows(), 0);
                size_type differences = 0;
                for (std::size_t i = 0; i < ids.size(); ++i) {
                    present[ids[i]] = 1;
                    // Position p of a reordered layer holds neuron order[p].
                    for (size_type p = 0; p < 1024; ++p) {
                        const size_type neuron = prepared.order.empty() ? p : prepared.order[p];
                        differences += got[i * 1024 + p] != expected(ids[i], neuron);
                    }
                }
                REQUIRE(differences == 0);
                // Images dropped by compaction are all zero in the reference.
                size_type live = 0;
                for (size_type i = 0; i < images.rows(); ++i) {
                    bool any = false;
                    for (size_type j = 0; j < 1024 && !any; ++j) any = expected(i, j) != 0;
                    live += any;
                    if (!present[i]) REQUIRE_FALSE(any);
                }
                CHECK(static_cast<size_type>(engine->nonzero_ids().size()) == live);
                if (compaction) CHECK(engine->count() == live);
            }
        }
    }
}

TEST_CASE("fused kernel: every tile width, several stages, ragged blocks, random weights", "[spdnn][kernel]") {
    // A 1000 x 1000 Wᵀ with random values, staged in buffers of 200 inputs (several stages per
    // block) and blocks of 96 rows (the last one partial); 77 images (last tile partial).
    const size_type n = 1000, m = 77;
    auto wt = generate::random_with_empty_rows<Value, Index>(n, n, 24, 0.1, 3);
    auto y = generate::random_dense<Value>(m, n, Layout::row_major, 4);
    for (size_type i = 0; i < m; ++i)
        for (size_type j = 0; j < n; ++j) y(i, j) = std::abs(y(i, j));
    const auto ep = Epilogue<Value>::bias_relu_cap(Value(-0.2), Value(1.5));
    DenseMatrix<Value> z(m, n);
    reference::spmm<Value, Index>(wt, DenseView<const Value>(y.data(), n, m, Layout::col_major, n),
                                  DenseView<Value>(z.data(), n, m, Layout::col_major, n), ep);
    for (size_type buffer : {200, 1000}) {
        TiledEllConfig config;
        config.block_rows = 96;
        config.buffer_entries = buffer;
        const auto ell = tiled_ell_from_csr(wt, config);
        if (buffer == 200) REQUIRE(ell.num_stages() > ell.num_blocks());
        for (int r : fused_register_factors) {
            CAPTURE(buffer, r);
            TileActivations in(n, r), out(n, r);
            in.resize(m);
            for (size_type i = 0; i < m; ++i) {
                in.ids()[i] = i;
                in.set_row(i, y.data() + i * n);
            }
            in.clear_padding();
            std::vector<std::uint64_t> masks;
            fused_layer(ell, in, out, ep, masks);
            std::vector<Value> row(n);
            double worst = 0;
            for (size_type i = 0; i < m; ++i) {
                out.get_row(i, row.data());
                bool any = false;
                for (size_type j = 0; j < n; ++j) {
                    worst = std::max(worst, double(std::abs(row[j] - z(i, j))));
                    any |= z(i, j) != 0;
                }
                CHECK(((masks[i / r] >> (i % r)) & 1) == (any ? 1u : 0u));
            }
            CHECK(worst <= 1e-5);
        }
    }
}

TEST_CASE("compaction keeps the answer of no compaction; both kernels agree", "[spdnn]") {
    const auto& net = small_network();
    const auto& images = small_images();
    const auto& expected = small_answer();
    REQUIRE(expected.size() > 3);
    for (auto kernel : {KernelChoice::fused, KernelChoice::core})
        for (bool compaction : {true, false})
            for (size_type batch : {0, 64}) {
                CAPTURE(to_string(kernel), compaction, batch);
                InferenceOptions opt;
                opt.backend = Backend::cpu;
                opt.kernel = kernel;
                opt.compaction = compaction;
                opt.batch_images = batch;
                const auto result = infer(net, images, opt);
                CHECK(result.categories == expected);
                CHECK(result.layers.back().live_rows == static_cast<size_type>(expected.size()));
                if (batch == 64) CHECK(result.batches == 5);
            }
}

TEST_CASE("live rows per layer equal the reference's", "[spdnn]") {
    std::vector<size_type> live;
    reference_categories(small_network(), small_images(), {}, &live);
    InferenceOptions opt;
    opt.backend = Backend::cpu;
    const auto result = infer(small_network(), small_images(), opt);
    for (size_type k = 0; k < small_network().layer_count(); ++k) CHECK(result.layers[k].live_rows == live[k]);
    CHECK(result.edges == 32 * 1024 * 14);
    CHECK(result.edges_per_second() > 0);
}

TEST_CASE("streamed weights give the resident answer (odd L, repeated passes)", "[spdnn][stream]") {
    const auto& net = small_network();  // 14 layers; 13 below makes L odd
    Network odd = net;
    odd.layers.pop_back();
    ReferenceOptions ro;
    ro.parallel_batches = true;
    const auto expected = reference_categories(odd, small_images(), ro);
    for (bool reorder : {false, true}) {
        CAPTURE(reorder);
        const auto layout = weight_layout(1024, 256, reorder);
        auto streamed =
            streamed_weights(odd.layer_count(), [&](size_type k) { return odd.layers[k]; }, layout, "host");
        auto resident = resident_weights(odd, layout);
        InferenceOptions opt;
        opt.backend = Backend::cpu;
        opt.batch_images = 96;  // several passes over the layers
        for (int rep = 0; rep < 2; ++rep) {
            const auto result = infer(shape_of(odd), *streamed, small_images(), opt);
            CHECK(result.categories == expected);
            CHECK(result.batches == 4);
        }
        // Out-of-order use still hands out the right layer (with the right input labels).
        for (size_type k : {5, 2, 3, 0, 12}) {
            const auto& s = streamed->get(k);
            const auto& r = resident->get(k);
            CHECK(csr_from_tiled_ell(s.ell).col_idx() == csr_from_tiled_ell(r.ell).col_idx());
            CHECK(s.order == r.order);
        }
    }
}

TEST_CASE("tile activations: rows in and out, compaction keeps order", "[spdnn]") {
    TileActivations a(5, 8), b(5, 8);
    a.resize(19);
    std::vector<Value> row(5);
    for (size_type i = 0; i < 19; ++i) {
        a.ids()[i] = 100 + i;
        for (size_type j = 0; j < 5; ++j) row[j] = Value(i * 10 + j);
        a.set_row(i, row.data());
    }
    std::vector<std::uint64_t> masks = {0b10110001, 0xff, 0b111};
    const size_type live = compact(a, masks, b);
    CHECK(live == 4 + 8 + 3);
    CHECK(count_live(masks, 19, 8) == 15);
    CHECK(b.ids()[0] == 100);
    CHECK(b.ids()[1] == 104);
    CHECK(b.ids()[4] == 108);
    b.get_row(14, row.data());
    CHECK(row[3] == Value(18 * 10 + 3));
    b.get_row(3, row.data());
    CHECK(row[0] == Value(70));
}
