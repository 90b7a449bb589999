// One Graph Challenge layer, again and again: the fused tile kernel and core's tiled ELL SpMM
// for several register factors and live-image counts (the kernels' own rate, no compaction).
#include <omp.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <random>

#include "apps/spdnn/engines/fused_layer_kernels.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "apps/spdnn/network/layer_weights.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"

using namespace tessel;
using namespace tessel::spdnn;

int main(int argc, char** argv) {
    CLI::App app{"tessel-bench-spdnn-kernel: one sparse DNN layer with the fused and the core kernels"};
    size_type neurons = 1024, images = 1200, layer = 7, block_rows = 256;
    int threads = 0, repeat = 50;
    std::vector<int> factors = {8, 16, 32, 64};
    std::string json;
    int reorder = 0;
    app.add_option("--neurons", neurons)->capture_default_str();
    app.add_option("--images", images, "live images (columns of Yᵀ)")->capture_default_str();
    app.add_option("--layer", layer, "RadiX-Net layer index (1-based)")->capture_default_str();
    app.add_option("--block-rows", block_rows)->capture_default_str();
    app.add_option("--threads", threads);
    app.add_option("--repeat", repeat)->capture_default_str();
    app.add_option("--register", factors, "register factors to try")->capture_default_str();
    app.add_option("--json", json, "write the results here");
    app.add_option("--reorder", reorder, "1: output neurons grouped by inputs, 0: natural order, -1: auto")
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    if (threads > 0) omp_set_num_threads(threads);

    const auto net = generate_network(neurons, layer, official_bias(neurons), 1);
    const auto layout = weight_layout(neurons, block_rows, reorder);
    const auto wt = prepare_layer(net.layers.back(), layout.ell,
                                  layout.reorder ? locality_order(net.layers.back()) : std::vector<Index>{})
                        .ell;
    const auto ep = Epilogue<Value>::bias_relu_cap(official_bias(neurons), activation_cap);
    // Saturated live rows, like the surviving images of the real networks (values in 0..32).
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(0, 1);
    std::vector<Value> dense(static_cast<std::size_t>(images * neurons));
    for (auto& v : dense) v = u(rng) < 0.3f ? 0.0f : 32.0f * u(rng);
    const double edges = double(images) * double(wt.nnz);
    std::printf("tiled ELL: %lld blocks, %lld stages, %.1f staged inputs per block, reuse %.1f, padding %.3f%s\n",
                static_cast<long long>(wt.num_blocks()), static_cast<long long>(wt.num_stages()),
                double(wt.map.size()) / double(wt.num_blocks()), wt.average_reuse(), wt.padding_overhead(),
                layout.reorder ? ", rows reordered" : "");
    std::printf("N = %lld, %lld live images, %d threads: edges x images per layer %.3g\n",
                static_cast<long long>(neurons), static_cast<long long>(images), omp_get_max_threads(), edges);
    nlohmann::json out;
    for (int r : factors) {
        if (!fused_register_factor_supported(r)) continue;
        TileActivations in(neurons, r), o(neurons, r);
        in.resize(images);
        for (size_type i = 0; i < images; ++i) {
            in.ids()[i] = i;
            in.set_row(i, dense.data() + i * neurons);
        }
        in.clear_padding();
        std::vector<std::uint64_t> masks;
        fused_layer(wt, in, o, ep, masks);
        double best = 1e30;
        for (int k = 0; k < repeat; ++k) {
            Timer t;
            fused_layer(wt, in, o, ep, masks);
            best = std::min(best, t.seconds());
        }
        std::printf("fused R = %-3d %9.3f ms  %8.3g edges/s\n", r, best * 1e3, edges / best);
        out["fused"][std::to_string(r)] = {{"seconds", best}, {"edges_per_second", edges / best}};
    }
    {
        std::vector<Value> b(static_cast<std::size_t>(neurons * images)), c(b.size());
        for (size_type i = 0; i < images; ++i)
            for (size_type j = 0; j < neurons; ++j) b[j * images + i] = dense[i * neurons + j];
        for (int r : {8, 16, 32}) {
            DenseView<const Value> bv(b.data(), neurons, images);
            DenseView<Value> cv(c.data(), neurons, images);
            cpu::spmm_tiled_ell<Value, Index>(wt, bv, cv, ep, r);
            double best = 1e30;
            for (int k = 0; k < repeat; ++k) {
                Timer t;
                cpu::spmm_tiled_ell<Value, Index>(wt, bv, cv, ep, r);
                best = std::min(best, t.seconds());
            }
            std::printf("core  R = %-3d %9.3f ms  %8.3g edges/s\n", r, best * 1e3, edges / best);
            out["core"][std::to_string(r)] = {{"seconds", best}, {"edges_per_second", edges / best}};
        }
    }
    if (!json.empty()) write_file_atomically(json, out.dump(2) + "\n");
    return 0;
}
