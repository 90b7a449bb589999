// The inference driver: shares of images per rank, batches, layers, counts exchanged after
// every layer, rebalancing of live images, the answer gathered on every rank.
#include "apps/spdnn/driver/inference.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

#include "core/cpu/isa.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/device_traffic.hpp"
#include "core/error.hpp"
#include "core/kernels/spmm.hpp"
#include "core/progress.hpp"

namespace tessel::spdnn {

namespace {

struct Ranks {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int size = 1;
    bool active() const { return comm != MPI_COMM_NULL; }
};

// Moves live images so that every rank holds total/P of them, keeping the global order.
// counts[p] is rank p's live count. Returns the rows this rank sent.
size_type rebalance(Engine& engine, const Ranks& ranks, const std::vector<size_type>& counts,
                    size_type neurons) {
    const int p_count = ranks.size, me = ranks.rank;
    std::vector<size_type> start(p_count + 1, 0), target(p_count + 1, 0);
    for (int p = 0; p < p_count; ++p) start[p + 1] = start[p] + counts[p];
    const size_type total = start[p_count];
    for (int p = 0; p < p_count; ++p)
        target[p + 1] = target[p] + total / p_count + (p < total % p_count ? 1 : 0);
    auto overlap = [](size_type a0, size_type a1, size_type b0, size_type b1) {
        return std::pair<size_type, size_type>{std::max(a0, b0), std::min(a1, b1)};
    };
    std::vector<int> send_rows(p_count, 0), recv_rows(p_count, 0), send_at(p_count, 0), recv_at(p_count, 0);
    std::vector<std::pair<size_type, size_type>> send_range(p_count);
    for (int q = 0; q < p_count; ++q) {
        auto s = overlap(start[me], start[me + 1], target[q], target[q + 1]);
        auto r = overlap(start[q], start[q + 1], target[me], target[me + 1]);
        if (q != me && s.second > s.first) send_rows[q] = static_cast<int>(s.second - s.first);
        if (q != me && r.second > r.first) recv_rows[q] = static_cast<int>(r.second - r.first);
        send_range[q] = s;
    }
    for (int q = 1; q < p_count; ++q) {
        send_at[q] = send_at[q - 1] + send_rows[q - 1];
        recv_at[q] = recv_at[q - 1] + recv_rows[q - 1];
    }
    const size_type sent = std::accumulate(send_rows.begin(), send_rows.end(), size_type{0});
    const size_type received = std::accumulate(recv_rows.begin(), recv_rows.end(), size_type{0});
    std::vector<Value> send(static_cast<std::size_t>(sent * neurons)), recv(static_cast<std::size_t>(received * neurons));
    std::vector<std::int64_t> send_ids(sent), recv_ids(received);
    const auto ids = engine.ids();
    for (int q = 0; q < p_count; ++q) {
        if (send_rows[q] == 0) continue;
        const size_type b = send_range[q].first - start[me], e = send_range[q].second - start[me];
        engine.export_rows(b, e, send.data() + size_type(send_at[q]) * neurons);
        std::copy(ids.begin() + b, ids.begin() + e, send_ids.begin() + send_at[q]);
    }
    MPI_Datatype row_type;
    TESSEL_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(neurons), MPI_FLOAT, &row_type));
    TESSEL_MPI_CHECK(MPI_Type_commit(&row_type));
    const int status = MPI_Alltoallv(send.data(), send_rows.data(), send_at.data(), row_type, recv.data(),
                                     recv_rows.data(), recv_at.data(), row_type, ranks.comm);
    MPI_Type_free(&row_type);
    if (status != MPI_SUCCESS) comm::throw_mpi_error(__FILE__, __LINE__, "MPI_Alltoallv(rows)", status);
    TESSEL_MPI_CHECK(MPI_Alltoallv(send_ids.data(), send_rows.data(), send_at.data(), MPI_INT64_T, recv_ids.data(),
                            recv_rows.data(), recv_at.data(), MPI_INT64_T, ranks.comm));
    // Rows from lower ranks come first, then the kept ones, then rows from higher ranks.
    size_type front_rows = 0;
    for (int q = 0; q < me; ++q) front_rows += recv_rows[q];
    std::vector<Value> front(recv.begin(), recv.begin() + front_rows * neurons);
    std::vector<Value> back(recv.begin() + front_rows * neurons, recv.end());
    std::vector<std::int64_t> front_ids(recv_ids.begin(), recv_ids.begin() + front_rows);
    std::vector<std::int64_t> back_ids(recv_ids.begin() + front_rows, recv_ids.end());
    auto keep = overlap(start[me], start[me + 1], target[me], target[me + 1]);
    size_type kb = 0, ke = 0;
    if (keep.second > keep.first) {
        kb = keep.first - start[me];
        ke = keep.second - start[me];
    }
    engine.rebuild(front, front_ids, kb, ke, back, back_ids);
    return sent;
}

std::unique_ptr<Engine> make_engine(Backend backend, KernelChoice kernel, const EngineOptions& eo) {
    if (eo.row_group_layers < 0 || (eo.row_group_layers > 0 && eo.row_groups == 1))
        TESSEL_INVALID_INPUT("--row-group-layers", 0,
                             std::to_string(eo.row_group_layers) + ": a layer count (0: all) with --row-groups 2, 4 or 8");
    if (backend == Backend::cuda) return make_cuda_engine(eo, kernel);
    if (eo.row_groups != 1) TESSEL_INVALID_INPUT("--row-groups", 0, "row groups are a cuda kernel's (--backend cuda)");
    switch (kernel) {
    case KernelChoice::automatic:
    case KernelChoice::fused: return make_fused_engine(eo);
    case KernelChoice::core: return make_core_engine(eo);
    case KernelChoice::cusparse:
        TESSEL_INVALID_INPUT("--kernel", 0, "cusparse needs --backend cuda");
    }
    return nullptr;
}

Ranks ranks_of(MPI_Comm comm) {
    Ranks ranks;
    if (comm != MPI_COMM_NULL) {
        ranks.comm = comm;
        TESSEL_MPI_CHECK(MPI_Comm_rank(ranks.comm, &ranks.rank));
        TESSEL_MPI_CHECK(MPI_Comm_size(ranks.comm, &ranks.size));
    }
    return ranks;
}

// This rank's share of the images (a contiguous range, equal counts) and its batches.
struct BatchPlan {
    size_type first = 0, last = 0;  // images [first, last)
    size_type batch = 0;            // images per batch, a multiple of the tile
    size_type batches = 0;
    std::vector<std::int64_t> rows(size_type bi) const {
        std::vector<std::int64_t> r;
        for (size_type i = first + bi * batch; i < std::min(last, first + (bi + 1) * batch); ++i) r.push_back(i);
        return r;
    }
};

BatchPlan plan_batches(size_type m, const Ranks& ranks, size_type n, size_type tile, const InferenceOptions& options) {
    BatchPlan plan;
    plan.first = m * ranks.rank / ranks.size;
    plan.last = m * (ranks.rank + 1) / ranks.size;
    const size_type largest_share = (m + ranks.size - 1) / ranks.size;
    size_type batch = options.batch_images;
    if (batch <= 0) batch = std::max<size_type>(tile, options.memory_budget / (2 * n * size_type(sizeof(Value))));
    batch = std::min(batch, std::max<size_type>(largest_share, 1));
    plan.batch = (batch + tile - 1) / tile * tile;
    plan.batches = largest_share == 0 ? 0 : (largest_share + plan.batch - 1) / plan.batch;
    return plan;
}

// Seconds and live rows per layer, summed over batches (then the slowest rank's).
struct LayerStats {
    std::vector<double> seconds, kernel, compaction, rebalance, wait;
    std::vector<size_type> live;
    double exchange = 0;
    explicit LayerStats(size_type layers)
        : seconds(layers, 0), kernel(layers, 0), compaction(layers, 0), rebalance(layers, 0), wait(layers, 0),
          live(layers, 0) {}
};

// After layer k: every rank's live count (the total, and the balance); rows moved when the
// largest count is too far above the mean. Returns the live rows of all ranks.
size_type exchange_counts(Engine& engine, const Ranks& ranks, const InferenceOptions& options, size_type k,
                          size_type layers, size_type tile, size_type neurons, size_type live, LayerStats& stats,
                          InferenceResult& result) {
    Timer xt;
    std::int64_t mine[2] = {engine.count(), live};
    std::vector<std::int64_t> all(2 * ranks.size);
    TESSEL_MPI_CHECK(MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, ranks.comm));
    stats.exchange += xt.seconds();
    std::vector<size_type> counts(ranks.size);
    live = 0;
    for (int p = 0; p < ranks.size; ++p) {
        counts[p] = all[2 * p];
        live += all[2 * p + 1];
    }
    const size_type sum = std::accumulate(counts.begin(), counts.end(), size_type{0});
    const size_type biggest = *std::max_element(counts.begin(), counts.end());
    const size_type smallest = *std::min_element(counts.begin(), counts.end());
    const double mean = double(sum) / ranks.size;
    if (options.rebalance && k + 1 < layers && ranks.size > 1 && biggest - smallest > 1 &&
        double(biggest) > options.rebalance_threshold * mean &&
        (options.rebalance_threshold <= 1.0 || mean >= tile)) {
        Timer rt;
        result.rows_moved += rebalance(engine, ranks, counts, neurons);
        ++result.rebalances;
        stats.rebalance[k] += rt.seconds();
    }
    return live;
}

// The answer (1-based ids) of every rank on every rank, ascending.
std::vector<std::int64_t> gather_answer(std::vector<std::int64_t> found, const Ranks& ranks) {
    std::vector<std::int64_t> categories;
    if (ranks.active()) {
        int mine = static_cast<int>(found.size());
        std::vector<int> counts(ranks.size), at(ranks.size, 0);
        TESSEL_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, ranks.comm));
        for (int p = 1; p < ranks.size; ++p) at[p] = at[p - 1] + counts[p - 1];
        categories.resize(static_cast<std::size_t>(at.back()) + counts.back());
        TESSEL_MPI_CHECK(MPI_Allgatherv(found.data(), mine, MPI_INT64_T, categories.data(), counts.data(), at.data(),
                                 MPI_INT64_T, ranks.comm));
    } else {
        categories = std::move(found);
    }
    std::sort(categories.begin(), categories.end());
    return categories;
}

// Layer k of the batch on the engine (the device times of a deferred engine come with
// batch_records()).
void run_layer(Engine& engine, LayerWeights& weights, const Images& images, const std::vector<std::int64_t>& rows,
               const Epilogue<Value>& ep, size_type k, LayerStats& stats) {
    const double waited = weights.wait_seconds();
    const auto& wt = weights.get(k).ell;
    stats.wait[k] += weights.wait_seconds() - waited;
    LayerTimes times;
    if (k == 0)
        engine.first_layer(wt, images, rows, ep, times);
    else
        engine.layer(k, wt, ep, times);
    stats.kernel[k] += times.kernel;
    stats.compaction[k] += times.compaction;
}

// A deferred engine's layers of one batch: device times, and the live counts unless the
// driver read them after every layer.
void add_records(const std::vector<LayerRecord>& records, bool with_live, LayerStats& stats) {
    for (std::size_t k = 0; k < records.size() && k < stats.live.size(); ++k) {
        stats.kernel[k] += records[k].kernel;
        stats.compaction[k] += records[k].compaction;
        stats.seconds[k] += records[k].kernel + records[k].compaction;
        if (with_live) stats.live[k] += records[k].live;
    }
}

// Per-layer times (the slowest rank's) and rows moved (all ranks) into the result.
void report_layers(LayerStats& stats, const Ranks& ranks, size_type layers, InferenceResult& result) {
    if (ranks.active()) {
        for (auto* v : {&stats.seconds, &stats.kernel, &stats.compaction, &stats.rebalance, &stats.wait})
            TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v->data(), static_cast<int>(layers), MPI_DOUBLE, MPI_MAX,
                                    ranks.comm));
        TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &result.seconds, 1, MPI_DOUBLE, MPI_MAX, ranks.comm));
        std::int64_t moved = result.rows_moved;
        TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT64_T, MPI_SUM, ranks.comm));
        result.rows_moved = moved;
    }
    result.layers.assign(layers, {});
    for (size_type k = 0; k < layers; ++k) {
        auto& r = result.layers[k];
        r.live_rows = stats.live[k];
        r.seconds = stats.seconds[k];
        r.kernel_seconds = stats.kernel[k];
        r.compaction_seconds = stats.compaction[k];
        r.rebalance_seconds = stats.rebalance[k];
        r.weight_wait_seconds = stats.wait[k];
        result.phases.add("kernel", stats.kernel[k]);
        result.phases.add("compaction", stats.compaction[k]);
        result.phases.add("rebalance", stats.rebalance[k]);
        result.phases.add("weight_wait", stats.wait[k]);
    }
    result.phases.add("exchange_counts", stats.exchange);
}

}  // namespace

void check_inference_backend(Backend backend) {
    if (backend == Backend::reference)
        TESSEL_INVALID_INPUT("--backend", 0,
                             "reference: the inference runs on cpu or cuda (--reference runs the reference "
                             "inference beside it)");
}

namespace {

// The result's description of the run, and the engine it runs on.
std::unique_ptr<Engine> start_result(const NetworkShape& network, const LayerWeights& weights, const Images& images,
                                     const InferenceOptions& options, const Ranks& ranks, InferenceResult& result) {
    // The fused kernel is a cpu kernel: asking for it with backend auto means cpu.
    check_inference_backend(options.backend);
    const Backend backend = options.backend == Backend::automatic && options.kernel == KernelChoice::fused
                                ? Backend::cpu
                                : resolve_backend(options.backend);
    result.ranks = ranks.size;
    result.images = images.rows();
    result.edges = network.edges;
    result.compaction = options.compaction && network.bias <= 0;
    result.backend = std::string(to_string(backend));
    result.weights = weights.description();
    EngineOptions eo;
    eo.neurons = network.neurons;
    eo.register_factor = options.register_factor;
    eo.row_groups = options.row_groups;
    eo.row_group_layers = options.row_group_layers;
    eo.compaction = result.compaction;
    eo.weights_stable = weights.stable();
    eo.layers = network.layers;
    auto engine = make_engine(backend, options.kernel, eo);
    result.kernel = engine->name();
    result.register_factor = engine->register_factor();
    return engine;
}

}  // namespace

InferenceResult infer(const NetworkShape& network, LayerWeights& weights, const Images& images,
                      const InferenceOptions& options) {
    const size_type n = network.neurons, layers = network.layers;
    TESSEL_ENSURE_DIMS(n > 0 && layers > 0, "inference: empty network");
    TESSEL_ENSURE_DIMS(images.cols() == n, "images have " + std::to_string(images.cols()) +
                                               " features, the network has " + std::to_string(n) + " neurons");
    TESSEL_ENSURE_DIMS(weights.layers() == layers, "weights hold " + std::to_string(weights.layers()) +
                                                       " layers, the network " + std::to_string(layers));
    const Ranks ranks = ranks_of(options.comm);
    InferenceResult result;
    // This run's traffic only (one process may run several, --repeat).
    device_traffic::reset();
    auto engine = start_result(network, weights, images, options, ranks, result);
    const size_type tile = std::max(1, result.register_factor);
    const BatchPlan plan = plan_batches(images.rows(), ranks, n, tile, options);
    result.batches = plan.batches;
    result.batch_images = plan.batch;

    const auto ep = Epilogue<Value>::bias_relu_cap(network.bias, activation_cap);
    if (options.verbose && ranks.rank == 0) std::fprintf(stderr, "tessel-spdnn: %s\n", cpu::isa_description().c_str());
    LayerStats stats(layers);
    std::vector<std::int64_t> found;
    Progress progress("tessel-spdnn layers", layers * plan.batches, options.progress && ranks.rank == 0 ? -1 : 0);
    engine->reserve(std::min(plan.batch, plan.last - plan.first));
    Timer kept;
    engine->keep_images(images);
    const double keep_images_s = kept.seconds();
    // Resident weights go to a device engine once, before the timed layers.
    if (weights.stable())
        for (size_type k = 0; k < layers; ++k) engine->keep_layer(k, weights.get(k).ell);
    engine->finish_setup();
    // A deferred engine's count is read after every layer only where something needs it then.
    const bool count_each_layer = !engine->deferred_counts() || ranks.active() || options.verbose;
    if (ranks.active()) TESSEL_MPI_CHECK(MPI_Barrier(ranks.comm));
    Timer total;
    double start_batch_s = 0;
    for (size_type bi = 0; bi < plan.batches; ++bi) {
        const auto rows = plan.rows(bi);
        Timer st;
        engine->start_batch(images, rows);
        start_batch_s += st.seconds();
        {
            device_traffic::PhaseScope steady(device_traffic::Phase::steady);
            for (size_type k = 0; k < layers; ++k) {
                Timer lt;
                run_layer(*engine, weights, images, rows, ep, k, stats);
                size_type live = 0;
                if (count_each_layer) {
                    live = result.compaction ? engine->count() : static_cast<size_type>(engine->nonzero_ids().size());
                    if (ranks.active())
                        live = exchange_counts(*engine, ranks, options, k, layers, tile, n, live, stats, result);
                    stats.live[k] += live;
                }
                if (!engine->deferred_counts()) stats.seconds[k] += lt.seconds();
                if (options.verbose && ranks.rank == 0)
                    std::fprintf(stderr, "tessel-spdnn: batch %lld/%lld layer %lld/%lld: %lld live rows, %.3f ms\n",
                                 static_cast<long long>(bi + 1), static_cast<long long>(plan.batches),
                                 static_cast<long long>(k + 1), static_cast<long long>(layers),
                                 static_cast<long long>(live), 1e3 * lt.seconds());
                progress.update(bi * layers + k + 1, count_each_layer ? std::to_string(live) + " live rows" : "");
                device_traffic::count_steady_step();
            }
        }
        device_traffic::PhaseScope finish(device_traffic::Phase::finish);
        if (engine->deferred_counts()) add_records(engine->batch_records(), !count_each_layer, stats);
        for (auto id : engine->nonzero_ids()) found.push_back(id + 1);
    }
    device_traffic::PhaseScope finish(device_traffic::Phase::finish);
    Timer gt;
    result.categories = gather_answer(std::move(found), ranks);
    const double gather_s = gt.seconds();
    result.seconds = total.seconds();
    progress.finish(std::to_string(result.categories.size()) + " categories");
    report_layers(stats, ranks, layers, result);
    result.phases.add("gather", gather_s);
    // The host's time handing each batch's images over (a device engine: copies enqueued, the
    // pageable ones waited for) and the device's time to have them in place.
    result.phases.add("start_batch", start_batch_s);
    result.phases.add("images_to_device", engine->images_seconds());
    // Before the timed layers, like the resident weights' upload: on cuda the images' page-locking.
    result.phases.add("keep_images", keep_images_s);
    result.device_traffic = device_traffic::to_json();
    // The cuda engine picks its register tile and kernel variant at the first layer.
    if (const int r = engine->register_factor(); r > 0) result.register_factor = r;
    result.kernel = engine->name();
    return result;
}

InferenceResult infer(const Network& network, const Images& images, const InferenceOptions& options) {
    check_network(network);
    auto weights = resident_weights(network, weight_layout(network.neurons));
    return infer(shape_of(network), *weights, images, options);
}

}  // namespace tessel::spdnn
