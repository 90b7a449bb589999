// Resident and double-buffered streamed weights.
#include "apps/spdnn/network/layer_weights.hpp"

#include <omp.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <memory>
#include <numeric>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::spdnn {

WeightLayout weight_layout(size_type neurons, size_type block_rows, int reorder) {
    WeightLayout layout;
    layout.ell.block_rows = block_rows;
    layout.ell.buffer_entries = std::clamp<size_type>(neurons, 1, 65536);
    layout.reorder = reorder < 0 ? neurons * 32 * size_type(sizeof(Value)) > (size_type(256) << 10) : reorder != 0;
    return layout;
}

int parse_reorder(const std::string& value) {
    if (value == "auto") return -1;
    if (value == "on") return 1;
    if (value == "off") return 0;
    TESSEL_INVALID_INPUT("--reorder", 0, "'" + value + "' is not auto, on or off");
}

TiledEllConfig layer_ell_config(size_type neurons, size_type block_rows) {
    return weight_layout(neurons, block_rows, 0).ell;
}

std::vector<Index> locality_order(const Layer& w) {
    const Layer wt = transpose(w);  // row j: the sorted inputs of output neuron j
    std::vector<Index> order(wt.rows());
    std::iota(order.begin(), order.end(), Index{0});
    const auto& rp = wt.row_ptr();
    const auto& ci = wt.col_idx();
    std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
        return std::lexicographical_compare(ci.begin() + rp[a], ci.begin() + rp[a + 1], ci.begin() + rp[b],
                                            ci.begin() + rp[b + 1]);
    });
    return order;
}

PreparedLayer prepare_layer(const Layer& w, const TiledEllConfig& config, std::vector<Index> order,
                            const std::vector<Index>& input_order) {
    PreparedLayer out;
    Layer wt = transpose(w);
    if (order.empty() && input_order.empty()) {
        out.ell = tiled_ell_from_csr(wt, config);
        return out;
    }
    const size_type n_out = wt.rows(), n_in = wt.cols();
    TESSEL_ENSURE_DIMS(order.empty() || static_cast<size_type>(order.size()) == n_out,
                       "prepare_layer: output order has the wrong size");
    TESSEL_ENSURE_DIMS(input_order.empty() || static_cast<size_type>(input_order.size()) == n_in,
                       "prepare_layer: input order has the wrong size");
    std::vector<Index> position(n_in);
    std::iota(position.begin(), position.end(), Index{0});
    for (size_type q = 0; q < static_cast<size_type>(input_order.size()); ++q) position[input_order[q]] = static_cast<Index>(q);
    // Rows in `order`, entries in ascending input-neuron order with their new column labels
    // (not re-sorted: the tiled ELL slots follow this order, and so do the sums).
    std::vector<size_type> rp(n_out + 1, 0);
    std::vector<Index> ci(wt.nnz());
    std::vector<Value> va(wt.nnz());
    for (size_type p = 0; p < n_out; ++p) {
        const size_type r = order.empty() ? p : order[p];
        rp[p + 1] = rp[p] + wt.row_nnz(r);
    }
#pragma omp parallel for schedule(static) if (n_out > 4096)
    for (size_type p = 0; p < n_out; ++p) {
        const size_type r = order.empty() ? p : order[p];
        size_type at = rp[p];
        for (size_type e = wt.row_ptr()[r]; e < wt.row_ptr()[r + 1]; ++e, ++at) {
            ci[at] = position[wt.col_idx()[e]];
            va[at] = wt.values()[e];
        }
    }
    out.ell = tiled_ell_from_csr(Layer(n_out, n_in, std::move(rp), std::move(ci), std::move(va), "layer"), config);
    out.order = std::move(order);
    return out;
}

LayerConverter::LayerConverter(WeightLayout layout, std::function<Layer(size_type)> source)
    : layout_(layout), source_(std::move(source)) {}

PreparedLayer LayerConverter::operator()(size_type k) {
    TESSEL_ENSURE_DIMS(static_cast<bool>(source_), "LayerConverter: no source of layers");
    return convert(k, source_(k));
}

PreparedLayer LayerConverter::convert(size_type k, const Layer& w) {
    if (!layout_.reorder) return prepare_layer(w, layout_.ell);
    if (k == 0) {
        previous_order_.clear();
    } else if (previous_layer_ != k - 1) {
        if (!source_)
            TESSEL_INVALID_INPUT("layer " + std::to_string(k + 1), 0,
                                 "converted out of order without a source for layer " + std::to_string(k));
        previous_order_ = locality_order(source_(k - 1));
    }
    auto order = locality_order(w);
    auto layer = prepare_layer(w, layout_.ell, order, previous_order_);
    previous_order_ = std::move(order);
    previous_layer_ = k;
    return layer;
}

namespace {

size_type ell_bytes(const PreparedLayer& layer) {
    const auto& a = layer.ell;
    return static_cast<size_type>(a.values.size() * sizeof(Value) + a.index.size() * sizeof(std::uint16_t) +
                                  (a.map.size() + layer.order.size()) * sizeof(Index) +
                                  (a.buffdispl.size() + a.mapdispl.size() + a.warpdispl.size()) * sizeof(size_type));
}

std::string with_layout(std::string what, const WeightLayout& layout) {
    return layout.reorder ? what + ", rows reordered for locality" : what;
}

class Resident final : public LayerWeights {
public:
    Resident(const Network& network, const WeightLayout& layout)
        : layers_(network.layers.size()), description_(with_layout("resident", layout)) {
        const size_type count = network.layer_count();
        std::vector<std::vector<Index>> orders(count);
        if (layout.reorder) {
#pragma omp parallel for schedule(dynamic, 1)
            for (size_type k = 0; k < count; ++k) orders[k] = locality_order(network.layers[k]);
        }
        // One layer per thread: each conversion is small and the layers are many.
        std::vector<std::exception_ptr> errors(count);
#pragma omp parallel for schedule(dynamic, 1)
        for (size_type k = 0; k < count; ++k) {
            try {
                static const std::vector<Index> natural;
                layers_[k] = prepare_layer(network.layers[k], layout.ell, orders[k], k > 0 ? orders[k - 1] : natural);
            } catch (...) {
                errors[k] = std::current_exception();
            }
        }
        for (auto& e : errors)
            if (e) std::rethrow_exception(e);
    }
    size_type layers() const override { return static_cast<size_type>(layers_.size()); }
    const PreparedLayer& get(size_type k) override { return layers_.at(k); }
    std::string description() const override { return description_; }
    bool stable() const override { return true; }
    size_type bytes_held() const override {
        size_type total = 0;
        for (const auto& l : layers_) total += ell_bytes(l);
        return total;
    }

private:
    std::vector<PreparedLayer> layers_;
    std::string description_;
};

class Streamed final : public LayerWeights {
public:
    Streamed(size_type layers, std::function<PreparedLayer(size_type)> prepare, const WeightLayout& layout,
             std::string description)
        : layers_(layers), prepare_(std::move(prepare)), description_(with_layout(std::move(description), layout)) {
        TESSEL_ENSURE_DIMS(layers >= 1, "streamed weights: no layers");
        worker_ = std::thread([this] { run(); });
        {
            std::lock_guard<std::mutex> lock(mutex_);
            assign_locked(0, 0);
        }
        cv_.notify_all();
    }
    ~Streamed() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        worker_.join();
    }
    size_type layers() const override { return layers_; }
    std::string description() const override { return description_; }
    bool stable() const override { return false; }
    double wait_seconds() const override { return waited_; }
    size_type bytes_held() const override { return ell_bytes(slot_[0].ell) + ell_bytes(slot_[1].ell); }

    const PreparedLayer& get(size_type k) override {
        TESSEL_ENSURE_DIMS(k >= 0 && k < layers_, "streamed weights: no layer " + std::to_string(k));
        Timer wait;
        int s;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            s = find_locked(k);
            if (s < 0) {  // not asked for (out of order use): load it into the free buffer
                s = current_ < 0 ? 0 : 1 - current_;
                assign_locked(s, k);
                cv_.notify_all();
            }
            cv_.wait(lock, [&] { return slot_[s].layer == k || error_; });
            if (error_) std::rethrow_exception(error_);
            current_ = s;
            // The other buffer held the previous layer, which the caller has finished with.
            const size_type next = (k + 1) % layers_;
            if (next != k && find_locked(next) < 0) assign_locked(1 - s, next);
        }
        cv_.notify_all();
        waited_ += wait.seconds();
        return slot_[s].ell;
    }

private:
    struct Slot {
        size_type layer = -1;    // the layer held, ready
        size_type pending = -1;  // the layer being loaded into it
        PreparedLayer ell;
    };

    int find_locked(size_type k) const {
        for (int s = 0; s < 2; ++s)
            if (slot_[s].layer == k || slot_[s].pending == k) return s;
        return -1;
    }
    void assign_locked(int s, size_type k) {
        slot_[s].pending = k;
        slot_[s].layer = -1;
        queue_.push_back(s);
    }

    void run() {
        // The conversion runs beside the compute threads: keep it to one thread.
        omp_set_num_threads(1);
        for (;;) {
            int s;
            size_type k;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
                if (stop_) return;
                s = queue_.front();
                queue_.erase(queue_.begin());
                k = slot_[s].pending;
                if (k < 0) continue;  // already loaded by an earlier queue entry
            }
            try {
                auto ell = prepare_(k);
                std::lock_guard<std::mutex> lock(mutex_);
                if (slot_[s].pending == k) {
                    slot_[s].ell = std::move(ell);
                    slot_[s].layer = k;
                    slot_[s].pending = -1;
                }
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex_);
                error_ = std::current_exception();
            }
            cv_.notify_all();
        }
    }

    size_type layers_;
    std::function<PreparedLayer(size_type)> prepare_;  // called on the worker thread only
    std::string description_;
    Slot slot_[2];
    int current_ = -1;  // the slot the caller is using
    std::vector<int> queue_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::exception_ptr error_;
    bool stop_ = false;
    double waited_ = 0.0;
    std::thread worker_;
};

}  // namespace

std::unique_ptr<LayerWeights> resident_weights(const Network& network, const WeightLayout& layout) {
    return std::make_unique<Resident>(network, layout);
}

std::unique_ptr<LayerWeights> streamed_weights(size_type layers, std::function<Layer(size_type)> source,
                                               const WeightLayout& layout, std::string description) {
    // The converter keeps layer k - 1's order between calls: it lives in the worker's function.
    auto converter = std::make_shared<LayerConverter>(layout, std::move(source));
    return std::make_unique<Streamed>(
        layers, [converter](size_type k) { return (*converter)(k); }, layout, std::move(description));
}

std::unique_ptr<LayerWeights> streamed_prepared_weights(size_type layers,
                                                        std::function<PreparedLayer(size_type)> prepare,
                                                        const WeightLayout& layout, std::string description) {
    return std::make_unique<Streamed>(layers, std::move(prepare), layout, std::move(description));
}

}  // namespace tessel::spdnn
