// The cuda engine (layers on the device, compaction on the device, counts read once per batch)
// against the core engine, its cpu twin, layer by layer: resident and streamed weights,
// compaction on and off, several register factors, layers reordered. Then whole inferences on
// cuda against cpu with the device traffic of the layer loop.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "apps/spdnn/driver/inference.hpp"
#include "apps/spdnn/engines/engine.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "apps/spdnn/network/layer_weights.hpp"
#include "core/backend.hpp"
#include "core/device_traffic.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include <random>

#include "apps/spdnn/engines/cuda_layer_kernels.hpp"
#include "apps/spdnn/engines/device_layers.hpp"
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/device_limits.hpp"
#endif

using namespace tessel;
using namespace tessel::spdnn;

namespace {

constexpr size_type neurons = 1024;

const Network& network() {
    static const Network net = generate_network(neurons, 6, official_bias(neurons), 5);
    return net;
}
const Images& images() {
    static const Images im = generate_images(neurons, 150, 5);
    return im;
}

// Every image's 0-based id, the rows of one whole batch.
std::vector<std::int64_t> all_rows() {
    std::vector<std::int64_t> rows(static_cast<std::size_t>(images().rows()));
    std::iota(rows.begin(), rows.end(), std::int64_t{0});
    return rows;
}

// Live images of an engine as (id, activations) rows.
struct Snapshot {
    std::vector<std::int64_t> ids;
    std::vector<Value> rows;
};
Snapshot snapshot(const Engine& e) {
    Snapshot s;
    s.ids = e.ids();
    s.rows.resize(s.ids.size() * neurons);
    e.export_rows(0, static_cast<size_type>(s.ids.size()), s.rows.data());
    return s;
}

// Largest difference relative to max(1, |expected|): the device sums in the same order but
// may fuse multiply and add.
double largest_difference(const std::vector<Value>& a, const std::vector<Value>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(double(a[i]) - double(b[i])) / std::max(1.0, std::abs(double(b[i]))));
    return worst;
}

// Every layer of network() through both engines on all images, the device's live images and
// their activations checked against the host's after each; then the device's batch records.
void compare_layer_by_layer(Engine& cpu, Engine& gpu, LayerWeights& weights) {
    const auto& net = network();
    const auto ep = Epilogue<Value>::bias_relu_cap(net.bias, activation_cap);
    const auto rows = all_rows();
    gpu.reserve(images().rows());
    gpu.start_batch(images(), rows);
    for (size_type k = 0; k < net.layer_count(); ++k) {
        CAPTURE(k);
        LayerTimes times;
        const auto& wt = weights.get(k).ell;
        if (k == 0) {
            cpu.first_layer(wt, images(), rows, ep, times);
            gpu.first_layer(wt, images(), rows, ep, times);
        } else {
            cpu.layer(k, wt, ep, times);
            gpu.layer(k, wt, ep, times);
        }
        const Snapshot want = snapshot(cpu), got = snapshot(gpu);
        REQUIRE(got.ids == want.ids);
        CHECK(largest_difference(got.rows, want.rows) < 1e-5);
        CHECK(gpu.count() == cpu.count());
        CHECK(gpu.nonzero_ids() == cpu.nonzero_ids());
    }
    const auto records = gpu.batch_records();
    REQUIRE(records.size() == std::size_t(net.layer_count()));
    CHECK(records.back().live == static_cast<size_type>(cpu.nonzero_ids().size()));
}

}  // namespace

TEST_CASE("cuda engine equals the core engine layer by layer", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto& net = network();
    // Block rows up to 256 run the kernel compiled for several blocks of 256 per multiprocessor,
    // 512 and 1024 at R <= 8 those compiled for 2048 threads per multiprocessor, 1024 at R = 16
    // the one compiled for 1024 threads.
    struct Case {
        bool stable, compaction, reorder;
        int factor;
        size_type block_rows;
    };
    for (auto c : {Case{true, true, false, 0, 256}, Case{false, true, true, 8, 128}, Case{true, false, false, 4, 512},
                   Case{false, false, false, 32, 256}, Case{true, true, true, 0, 1024},
                   Case{false, true, false, 16, 1024}}) {
        CAPTURE(c.stable, c.compaction, c.reorder, c.factor, c.block_rows);
        auto weights = resident_weights(net, weight_layout(neurons, c.block_rows, c.reorder ? 1 : 0));
        const EngineOptions cpu_options{neurons, c.factor, c.compaction, true, net.layer_count()};
        const EngineOptions gpu_options{neurons, c.factor, c.compaction, c.stable, net.layer_count()};
        auto cpu = make_core_engine(cpu_options);
        auto gpu = make_cuda_engine(gpu_options, KernelChoice::core);
        if (c.stable)
            for (size_type k = 0; k < net.layer_count(); ++k) gpu->keep_layer(k, weights->get(k).ell);
        compare_layer_by_layer(*cpu, *gpu, *weights);
    }
}

TEST_CASE("cuda row-group layers equal the core engine layer by layer", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto& net = network();
    // Every kernel variant: groups of 2, 4 and 8 with 32 accumulators a thread (factor 0) and
    // with 64; rows reordered (equal inputs in one thread) and not; blocks of 32 to 128 threads;
    // all layers in groups, or the first three and the tiled kernel after them.
    struct Case {
        size_type group;
        int factor;
        bool reorder, compaction;
        size_type block_rows, grouped_layers;
    };
    for (auto c : {Case{2, 0, true, true, 256, 0}, Case{2, 32, false, false, 512, 0}, Case{4, 0, true, true, 256, 0},
                   Case{4, 16, true, false, 128, 0}, Case{8, 0, true, true, 256, 0}, Case{8, 8, false, true, 1024, 0},
                   Case{4, 0, true, true, 256, 3}, Case{2, 0, true, false, 512, 3}}) {
        CAPTURE(c.group, c.factor, c.reorder, c.compaction, c.block_rows, c.grouped_layers);
        auto weights = resident_weights(net, weight_layout(neurons, c.block_rows, c.reorder ? 1 : 0));
        auto cpu = make_core_engine({neurons, 0, c.compaction, true, net.layer_count()});
        auto gpu = make_cuda_engine(
            {neurons, c.factor, c.compaction, true, net.layer_count(), c.group, c.grouped_layers}, KernelChoice::core);
        for (size_type k = 0; k < net.layer_count(); ++k) gpu->keep_layer(k, weights->get(k).ell);
        compare_layer_by_layer(*cpu, *gpu, *weights);
        if (c.grouped_layers == 0) CHECK(gpu->register_factor() == (c.factor != 0 ? c.factor : int(32 / c.group)));
        if (c.grouped_layers != 0) CHECK_THAT(gpu->name(), Catch::Contains("in the first 3 layers, then tiled"));
        CHECK_THAT(gpu->name(), Catch::Contains("row-group layer (" + std::to_string(c.group) + " neurons a thread"));
    }
}

TEST_CASE("cuda row groups: bad options name --row-groups or --register", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const size_type layers = network().layer_count();
    CHECK_THROWS_WITH(make_cuda_engine({neurons, 0, true, true, layers, 3}, KernelChoice::core),
                      Catch::EndsWith("--row-groups: 3 is not 1 (off), 2, 4 or 8"));
    CHECK_THROWS_WITH(make_cuda_engine({neurons, 0, true, false, layers, 4}, KernelChoice::core),
                      Catch::EndsWith("--row-groups: row groups need resident weights (not --stream-weights)"));
    CHECK_THROWS_WITH(
        make_cuda_engine({neurons, 0, true, true, layers, 4}, KernelChoice::cusparse),
        Catch::EndsWith("--row-groups: row groups are the core kernel's (--kernel core), not cusparse's"));
    // Groups of 8 rows in blocks of 128: 16 threads, not a warp.
    auto weights = resident_weights(network(), weight_layout(neurons, 128, 1));
    auto engine = make_cuda_engine({neurons, 0, true, true, layers, 8}, KernelChoice::core);
    CHECK_THROWS_AS(engine->keep_layer(0, weights->get(0).ell), InvalidInput);
    // A factor the groups of 4 do not take.
    weights = resident_weights(network(), weight_layout(neurons, 256, 1));
    engine = make_cuda_engine({neurons, 4, true, true, layers, 4}, KernelChoice::core);
    for (size_type k = 0; k < layers; ++k) engine->keep_layer(k, weights->get(k).ell);
    engine->start_batch(images(), all_rows());
    LayerTimes times;
    const auto ep = Epilogue<Value>::bias_relu_cap(network().bias, activation_cap);
    CHECK_THROWS_WITH(engine->first_layer(weights->get(0).ell, images(), all_rows(), ep, times),
                      Catch::EndsWith("--register: 4 for row groups of 4: 8 or 16 (32 or 64 accumulators a thread)"));
    InferenceOptions cpu;
    cpu.backend = Backend::cpu;
    cpu.row_groups = 2;
    CHECK_THROWS_WITH(infer(network(), images(), cpu),
                      Catch::EndsWith("--row-groups: row groups are a cuda kernel's (--backend cuda)"));
}

// What the kept-images cases share: the layer's epilogue, the weights resident at 256 block
// rows, an engine with compaction and resident weights, every image.
struct KeptImagesCase {
    Epilogue<Value> ep = Epilogue<Value>::bias_relu_cap(network().bias, activation_cap);
    std::unique_ptr<LayerWeights> weights = resident_weights(network(), weight_layout(neurons, 256, 0));
    EngineOptions options{neurons, 0, true, true, network().layer_count()};
    std::vector<std::int64_t> rows = all_rows();
};

TEST_CASE("cuda engine: kept images go up as pinned copies and give the same layers", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto& net = network();
    const KeptImagesCase c;
    // References, not a structured binding: the lambdas below capture them (clang 14 refuses that).
    const auto& ep = c.ep;
    const auto& options = c.options;
    const auto& weights = c.weights;
    const auto& rows = c.rows;
    auto pageable = make_cuda_engine(options, KernelChoice::core);
    auto pinned = make_cuda_engine(options, KernelChoice::core);
    // A batch's copies up: its row offsets and ids (through the engine's pinned buffers) and the
    // images' columns and values, pageable unless kept (page-locking holds for the whole
    // process, so the engine that keeps nothing starts its batch first). The generated images
    // are all ones: kept, a run of them goes up as bits by feature (2 copies: the bits, the
    // ids), a scattered batch as its pattern without values (3, not 4).
    auto pageable_copies_of_batch = [&](Engine& e, const std::vector<std::int64_t>& batch, int copies) {
        e.reserve(images().rows());
        const auto before = device_traffic::counts(device_traffic::current_phase());
        e.start_batch(images(), batch);
        const auto after = device_traffic::counts(device_traffic::current_phase());
        CHECK(after.copies - before.copies == copies);
        return after.pageable_copies - before.pageable_copies;
    };
    auto same_layers = [&](const std::vector<std::int64_t>& batch) {
        for (size_type k = 0; k < net.layer_count(); ++k) {
            CAPTURE(k);
            LayerTimes times;
            const auto& wt = weights->get(k).ell;
            for (Engine* e : {pageable.get(), pinned.get()}) {
                if (k == 0)
                    e->first_layer(wt, images(), batch, ep, times);
                else
                    e->layer(k, wt, ep, times);
            }
            const Snapshot want = snapshot(*pageable), got = snapshot(*pinned);
            REQUIRE(got.ids == want.ids);
            CHECK(got.rows == want.rows);
        }
    };
    CHECK(pageable_copies_of_batch(*pageable, rows, 4) == 2);
    pinned->keep_images(images());
    CHECK(pageable_copies_of_batch(*pinned, rows, 2) == 0);
    same_layers(rows);
    // A second batch over the same pinned buffers, its images out of order: packed on the host
    // (pageable) in both engines, the kept engine's without values.
    const std::vector<std::int64_t> reversed(rows.rbegin(), rows.rend());
    CHECK(pageable_copies_of_batch(*pageable, reversed, 4) == 2);
    CHECK(pageable_copies_of_batch(*pinned, reversed, 3) == 1);
    same_layers(reversed);
    // A run that starts inside a word of the bits (images 37 ..: bit 5 of word 1 on).
    const std::vector<std::int64_t> tail(rows.begin() + 37, rows.end());
    CHECK(pageable_copies_of_batch(*pageable, tail, 4) == 2);
    CHECK(pageable_copies_of_batch(*pinned, tail, 2) == 0);
    same_layers(tail);
}

TEST_CASE("cuda engine: kept images of mixed values go up with them", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const KeptImagesCase c;
    const auto& ep = c.ep;
    const auto& options = c.options;
    const auto& weights = c.weights;
    const auto& rows = c.rows;
    const Images& ones = images();
    std::vector<Value> values(ones.values().begin(), ones.values().end());
    for (std::size_t e = 0; e < values.size(); e += 3) values[e] = Value(2);
    const Images mixed(ones.rows(), ones.cols(), ones.row_ptr(), ones.col_idx(), values);
    auto kept = make_cuda_engine(options, KernelChoice::core);
    auto cpu = make_core_engine(options);
    kept->keep_images(mixed);
    kept->reserve(mixed.rows());
    const auto before = device_traffic::counts(device_traffic::current_phase());
    kept->start_batch(mixed, rows);
    const auto after = device_traffic::counts(device_traffic::current_phase());
    CHECK(after.copies - before.copies == 4);  // row offsets, columns, values, ids
    LayerTimes times;
    kept->first_layer(weights->get(0).ell, mixed, rows, ep, times);
    cpu->first_layer(weights->get(0).ell, mixed, rows, ep, times);
    const Snapshot want = snapshot(*cpu), got = snapshot(*kept);
    REQUIRE(got.ids == want.ids);
    CHECK(largest_difference(got.rows, want.rows) < 1e-5);
}

TEST_CASE("cuda inference: cpu categories, no host wait and at most 32 bytes per layer", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto& net = network();
    InferenceOptions cpu_options;
    cpu_options.backend = Backend::cpu;
    const auto want = infer(net, images(), cpu_options);
    REQUIRE_FALSE(want.categories.empty());
    for (auto kernel : {KernelChoice::core, KernelChoice::cusparse}) {
        CAPTURE(to_string(kernel));
        InferenceOptions options;
        options.backend = Backend::cuda;
        options.kernel = kernel;
        options.batch_images = 64;  // three batches: every batch's counts read after its layers
        const auto got = infer(net, images(), options);
        CHECK(got.categories == want.categories);
        for (size_type k = 0; k < net.layer_count(); ++k) CHECK(got.layers[k].live_rows == want.layers[k].live_rows);
        const auto& t = got.device_traffic;
        const std::int64_t steps = t["steady_steps"];
        CHECK(steps == 3 * net.layer_count());
        const auto& steady = t["steady"];
        const std::int64_t bytes = steady["h2d_bytes"].get<std::int64_t>() + steady["d2h_bytes"].get<std::int64_t>();
        const std::int64_t waits = steady["synchronizations"];
        if (kernel == KernelChoice::core) {
            // The tiled kernel reads its column count on the device: nothing crosses, no wait;
            // it compacts in its last block: one launch per layer.
            CHECK(bytes == 0);
            CHECK(waits == 0);
            CHECK(steady["launches"].get<std::int64_t>() == steps);
        } else {
            // cuSPARSE needs the count on the host: 4 bytes and one wait per layer at most.
            CHECK(bytes <= 4 * steps);
            CHECK(waits <= steps);
        }
        CHECK(t["setup"]["h2d_bytes"].get<std::int64_t>() > 0);
        CHECK(t["finish"]["d2h_bytes"].get<std::int64_t>() > 0);
    }
    SECTION("row groups: the same categories, and the steady layers as the tiled kernel's") {
        InferenceOptions options;
        options.backend = Backend::cuda;
        options.kernel = KernelChoice::core;
        options.row_groups = 4;
        options.batch_images = 64;
        const auto got = infer(net, images(), options);
        CHECK(got.categories == want.categories);
        const auto& steady = got.device_traffic["steady"];
        const std::int64_t steps = got.device_traffic["steady_steps"];
        CHECK(steady["h2d_bytes"].get<std::int64_t>() + steady["d2h_bytes"].get<std::int64_t>() == 0);
        CHECK(steady["synchronizations"].get<std::int64_t>() == 0);
        CHECK(steady["launches"].get<std::int64_t>() == steps);
    }
}

TEST_CASE("cuda inference with streamed weights: cpu categories, the layers through pinned buffers",
          "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const auto& net = network();
    InferenceOptions cpu_options;
    cpu_options.backend = Backend::cpu;
    const auto want = infer(net, images(), cpu_options);
    const auto layout = weight_layout(neurons);
    auto streamed =
        streamed_weights(net.layer_count(), [&net](size_type k) { return net.layers[k]; }, layout, "streamed");
    InferenceOptions options;
    options.backend = Backend::cuda;
    options.kernel = KernelChoice::core;
    const auto got = infer(shape_of(net), *streamed, images(), options);
    CHECK(got.categories == want.categories);
    const auto& steady = got.device_traffic["steady"];
    const std::int64_t steps = got.device_traffic["steady_steps"];
    // One pinned copy per layer, and a wait only for the pinned buffer two layers back.
    CHECK(steady["copies"].get<std::int64_t>() == steps);
    CHECK(steady["pageable_copies"].get<std::int64_t>() == 0);
    CHECK(steady["synchronizations"].get<std::int64_t>() <= steps);
    CHECK(steady["d2h_bytes"].get<std::int64_t>() == 0);
}

#if defined(TESSEL_HAVE_CUDA)

TEST_CASE("cuda layer plan: the kernel's registers leave room for the blocks shared memory allows", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    if (cuda::detail::current_device_limits().shared_per_multiprocessor < 228 * 1024) {
        WARN("skipped: the expected variants are those of a device with 228 KiB of shared memory per SM");
        return;
    }
    device::LayerArrays w;
    w.rows = 4096;
    w.block_rows = 256;
    w.num_blocks = 16;
    auto plan = [&](size_type stage, int factor) {
        w.max_stage_entries = stage;
        return device::plan_layer(w, 60000, factor);
    };
    // 288 staged inputs (4096 neurons, reordered) x 8 columns: 9 KiB, eight blocks of 256.
    CHECK(plan(288, 0).register_factor == 8);
    CHECK(plan(288, 0).min_blocks == 8);
    // 1024 inputs (1024 neurons): 32 KiB, six blocks; 16 columns: three.
    CHECK(plan(1024, 0).min_blocks == 6);
    CHECK(plan(1024, 16).min_blocks == 3);
    CHECK(plan(1024, 4).min_blocks == 8);
    CHECK(plan(1024, 0).variant_threads == 256);
    // Blocks of 512 and 1024 rows at R <= 8: the variants for 2048 threads per SM.
    w.block_rows = 512;
    w.num_blocks = 8;
    CHECK(plan(288, 8).variant_threads == 512);
    CHECK(plan(288, 8).min_blocks == 4);
    CHECK(plan(1024, 4).min_blocks == 4);
    w.block_rows = 1024;
    w.num_blocks = 4;
    CHECK(plan(1024, 0).register_factor == 8);
    CHECK(plan(1024, 0).variant_threads == 1024);
    CHECK(plan(1024, 0).min_blocks == 2);
    // 16 columns: 64 KiB stages, three blocks of shared memory but not two of 1024 threads'
    // registers at 32 each: the variant compiled for 1024 threads alone.
    CHECK(plan(1024, 16).min_blocks == 1);
}

TEST_CASE("cuda row-group layer plan: factor, whole octets of staging, the tile's columns", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    device::LayerArrays w;
    w.rows = 4096;
    w.group = 4;
    w.block_rows = 256;
    w.num_blocks = 16;
    w.max_stage_entries = 285;  // 36 octets: 288 entries' room
    auto plan = device::plan_grouped_layer(w, 60000, 0);
    CHECK(plan.register_factor == 8);
    CHECK(plan.variant_threads == 64);
    CHECK(plan.shared_bytes == 288 * 8 * 4 + 8 * 4);
    plan = device::plan_grouped_layer(w, 60000, 16);
    CHECK(plan.shared_bytes == 288 * 16 * 4 + 16 * 4);
    CHECK(plan.column_blocks >= 1);
    CHECK(plan.column_blocks <= 60000 / 16);
    // A stage of one entry takes an octet's room; two rows a thread in blocks of 1024 rows: the
    // compaction's 512 counts take more.
    w.group = 2;
    w.block_rows = 1024;
    w.num_blocks = 4;
    w.max_stage_entries = 1;
    plan = device::plan_grouped_layer(w, 10, 0);
    CHECK(plan.register_factor == 16);
    CHECK(plan.shared_bytes == 512 * 4);
    w.group = 8;
    w.block_rows = 256;  // 32 threads: 128 bytes of counts
    plan = device::plan_grouped_layer(w, 10, 0);
    CHECK(plan.register_factor == 4);
    CHECK(plan.shared_bytes == 8 * 4 * 4 + 4 * 4);
    w.block_rows = 128;  // 16 threads: not a warp
    CHECK_THROWS_AS(device::plan_grouped_layer(w, 10, 0), InvalidInput);
    // A stage larger than a block's shared memory.
    w.block_rows = 256;
    w.max_stage_entries = 1 << 16;
    CHECK_THROWS_AS(device::plan_grouped_layer(w, 10, 8), CudaError);
}

namespace {

// What a compaction of k flags left on the device: its count (counts[1]), kept columns and ids.
struct CompactionOutput {
    const cuda::DeviceBuffer<std::int32_t>& counts;
    const cuda::DeviceBuffer<std::int32_t>& kept;
    const cuda::DeviceBuffer<std::int64_t>& ids_out;
    const cuda::DeviceBuffer<std::int32_t>& live;
    std::int32_t k;
};

// The output against the host's answer, and every flag zero again.
void check_compaction(const CompactionOutput& got, const std::vector<std::int32_t>& want_kept,
                      const std::vector<std::int64_t>& want_ids) {
    std::int32_t got_count = -1;
    got.counts.download(&got_count, 1, nullptr, 1);
    REQUIRE(got_count == static_cast<std::int32_t>(want_kept.size()));
    std::vector<std::int32_t> got_kept(want_kept.size()), flags(static_cast<std::size_t>(got.k), 1);
    std::vector<std::int64_t> got_ids(want_ids.size());
    got.kept.download(got_kept.data(), got_count);
    got.ids_out.download(got_ids.data(), got_count);
    got.live.download(flags.data(), got.k);
    CHECK(got_kept == want_kept);
    CHECK(got_ids == want_ids);
    CHECK(std::all_of(flags.begin(), flags.end(), [](std::int32_t f) { return f == 0; }));
}

}  // namespace

TEST_CASE("cuda compact_live equals a host loop over many chunks of flags", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    // 70011 flags: three chunks of 1024 threads x 32 (the last one ragged), runs of live and dead
    // columns.
    const std::int32_t k = 70011;
    std::mt19937 rng(7);
    std::vector<std::int32_t> flags(static_cast<std::size_t>(k));
    for (std::int32_t j = 0; j < k; ++j) flags[j] = (j / 300) % 3 == 0 ? 1 : int(rng() % 4 == 0);
    std::vector<std::int64_t> ids(flags.size());
    for (std::int32_t j = 0; j < k; ++j) ids[j] = 3 * std::int64_t(j) + 1;
    std::vector<std::int32_t> want_kept;
    std::vector<std::int64_t> want_ids;
    for (std::int32_t j = 0; j < k; ++j)
        if (flags[j]) {
            want_kept.push_back(j);
            want_ids.push_back(ids[j]);
        }
    cuda::DeviceBuffer<std::int32_t> live(flags.data(), k), kept(k), counts(2);
    cuda::DeviceBuffer<std::int64_t> ids_in(ids.data(), k), ids_out(k);
    counts.upload(&k, 1);
    spdnn::device::compact_live(live.data(), counts.data(), {nullptr, kept.data(), counts.data() + 1, ids_in.data(),
                                                             ids_out.data()},
                                nullptr);
    check_compaction({counts, kept, ids_out, live, k}, want_kept, want_ids);
}

TEST_CASE("cuda fused layer: its last block compacts the flags over many chunks", "[cuda][spdnn]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    // Blocks of 32 rows: the last block's chunks are 32 x 32 flags, so 2600 columns take three
    // (the last one ragged); many column blocks race for the last ticket.
    constexpr size_type n = 32, k = 2600;
    std::mt19937 rng(11);
    std::vector<size_type> row_ptr{0};
    std::vector<Index> col;
    for (size_type i = 0; i < n; ++i) {
        for (size_type e = 0; e < 4; ++e) col.push_back(static_cast<Index>((i * 7 + e * 5) % n));
        std::sort(col.end() - 4, col.end());
        col.erase(std::unique(col.end() - 4, col.end()), col.end());
        row_ptr.push_back(static_cast<size_type>(col.size()));
    }
    const Csr<Value, Index> wt_csr(n, n, row_ptr, col, std::vector<Value>(col.size(), Value(0.5)));
    const auto wt = tiled_ell_from_csr(wt_csr, TiledEllConfig{32, 64});
    // Column j: zero in runs (dead after the layer's bias), else a few rows of ones.
    std::vector<Value> in(n * k, Value(0));
    for (size_type j = 0; j < k; ++j)
        if ((j / 170) % 3 != 1 && rng() % 5 != 0)
            for (int r = 0; r < 3; ++r) in[(rng() % n) * k + j] = Value(1);
    std::vector<std::int64_t> ids(k);
    for (size_type j = 0; j < k; ++j) ids[j] = 5 * std::int64_t(j) + 2;

    ResidentLayers layers;
    layers.upload(0, wt, nullptr);
    const device::LayerArrays& w = *layers.find(0);
    const auto launch = device::plan_layer(w, k, 8);
    cuda::DeviceBuffer<Value> d_in(in.data(), n * k), d_out(n * k);
    cuda::DeviceBuffer<std::int32_t> src(k), counts(2), live(k), kept(k), arrived(1);
    cuda::DeviceBuffer<std::int64_t> ids_in(ids.data(), k), ids_out(k);
    live.fill_zero();
    arrived.fill_zero();
    device::identity_columns(src.data(), counts.data(), k, nullptr);
    const auto ep = Epilogue<Value>::bias_relu_cap(Value(-0.3), activation_cap);
    const device::Compaction next{arrived.data(), kept.data(), counts.data() + 1, ids_in.data(), ids_out.data()};
    for (int twice = 0; twice < 2; ++twice) {  // the counter is left zero for the next layer
        CAPTURE(twice);
        device::fused_layer(w, {d_in.data(), src.data(), counts.data(), d_out.data(), live.data(), k}, next, ep, launch,
                            nullptr);
        std::vector<Value> out(n * k);
        d_out.download(out.data(), n * k);
        std::vector<std::int32_t> want_kept;
        std::vector<std::int64_t> want_ids;
        for (size_type j = 0; j < k; ++j)
            for (size_type i = 0; i < n; ++i)
                if (out[i * k + j] != Value(0)) {
                    want_kept.push_back(static_cast<std::int32_t>(j));
                    want_ids.push_back(ids[j]);
                    break;
                }
        REQUIRE(want_kept.size() > 1000);
        REQUIRE(want_kept.size() < 2000);
        check_compaction({counts, kept, ids_out, live, static_cast<std::int32_t>(k)}, want_kept, want_ids);
        std::int32_t got_arrived = -1;
        arrived.download(&got_arrived, 1);
        CHECK(got_arrived == 0);
    }
}

#endif
