// The engine around the fused tile kernel: two tile buffers swapped between layers.
#include <algorithm>

#include "apps/spdnn/engines/engine.hpp"
#include "apps/spdnn/engines/fused_layer_kernels.hpp"
#include "apps/spdnn/engines/tile_activations.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::spdnn {

std::string_view to_string(KernelChoice kernel) {
    switch (kernel) {
    case KernelChoice::automatic: return "auto";
    case KernelChoice::fused: return "fused";
    case KernelChoice::core: return "core";
    case KernelChoice::cusparse: return "cusparse";
    }
    return "unknown";
}

KernelChoice parse_kernel(std::string_view name) {
    if (name == "auto") return KernelChoice::automatic;
    if (name == "fused") return KernelChoice::fused;
    if (name == "core") return KernelChoice::core;
    if (name == "cusparse") return KernelChoice::cusparse;
    TESSEL_INVALID_INPUT("--kernel", 0, "'" + std::string(name) + "' is not one of auto, fused, core, cusparse");
}

namespace {

// cur_ holds the last layer's outputs for every image it ran; with a compaction pending,
// only the images at positions from_ are live, and the next layer gathers exactly those
// while it stages its input tiles (so dropped rows are never copied through memory).
class FusedEngine final : public Engine {
public:
    explicit FusedEngine(const EngineOptions& options)
        : compaction_(options.compaction),
          cur_(options.neurons, options.register_factor ? options.register_factor : 32),
          next_(options.neurons, cur_.tile_width()) {
        if (!fused_register_factor_supported(cur_.tile_width()))
            TESSEL_INVALID_INPUT("--register", 0,
                                 std::to_string(cur_.tile_width()) +
                                     " is not one of the fused kernel's tile widths 8, 12, 16, 32, 64");
    }

    std::string name() const override { return "cpu fused tiled-ELL"; }
    int register_factor() const override { return cur_.tile_width(); }

    void reserve(size_type images) override {
        for (auto* a : {&cur_, &next_}) {
            a->resize(images);
            for (size_type t = 0; t < a->tiles(); ++t) std::fill(a->tile(t), a->tile(t) + a->tile_size(), Value(0));
            a->resize(0);
        }
        pending_ = false;
    }

    void first_layer(const TiledEll<Value, Index>& wt, const Images& images,
                     const std::vector<std::int64_t>& rows, const Epilogue<Value>& ep,
                     LayerTimes& times) override {
        Timer t;
        pending_ = false;
        next_.resize(static_cast<size_type>(rows.size()));
        std::copy(rows.begin(), rows.end(), next_.ids().begin());
        fused_first_layer(wt, images, next_, ep, masks_);
        std::swap(cur_, next_);
        times.kernel += t.seconds();
        finish(times);
    }

    void layer(size_type, const TiledEll<Value, Index>& wt, const Epilogue<Value>& ep, LayerTimes& times) override {
        Timer t;
        fused_layer(wt, cur_, next_, ep, masks_, pending_ ? &from_ : nullptr);
        std::swap(cur_, next_);
        pending_ = false;
        times.kernel += t.seconds();
        finish(times);
    }

    size_type count() const override { return pending_ ? static_cast<size_type>(from_.size()) : cur_.count(); }
    std::vector<std::int64_t> ids() const override {
        if (!pending_) return cur_.ids();
        std::vector<std::int64_t> out(from_.size());
        for (std::size_t i = 0; i < from_.size(); ++i) out[i] = cur_.ids()[from_[i]];
        return out;
    }
    std::vector<std::int64_t> nonzero_ids() const override {
        if (compaction_) return ids();
        std::vector<std::int64_t> out;
        for (size_type i = 0; i < cur_.count(); ++i)
            if ((masks_[i / cur_.tile_width()] >> (i % cur_.tile_width())) & 1) out.push_back(cur_.ids()[i]);
        return out;
    }

    void export_rows(size_type begin, size_type end, Value* rows) const override {
        const size_type n = cur_.neurons();
#pragma omp parallel for schedule(static)
        for (size_type i = begin; i < end; ++i) cur_.get_row(pending_ ? from_[i] : i, rows + (i - begin) * n);
    }

    void rebuild(const std::vector<Value>& front, const std::vector<std::int64_t>& front_ids,
                 size_type keep_begin, size_type keep_end, const std::vector<Value>& back,
                 const std::vector<std::int64_t>& back_ids) override {
        materialize();
        const size_type n = cur_.neurons();
        const size_type nf = static_cast<size_type>(front_ids.size()), nk = keep_end - keep_begin;
        const size_type nb = static_cast<size_type>(back_ids.size());
        next_.resize(nf + nk + nb);
        auto& ids = next_.ids();
        std::copy(front_ids.begin(), front_ids.end(), ids.begin());
        std::copy(cur_.ids().begin() + keep_begin, cur_.ids().begin() + keep_end, ids.begin() + nf);
        std::copy(back_ids.begin(), back_ids.end(), ids.begin() + nf + nk);
        std::vector<Value> row(n);
        for (size_type i = 0; i < nf; ++i) next_.set_row(i, front.data() + i * n);
        for (size_type i = 0; i < nk; ++i) {
            cur_.get_row(keep_begin + i, row.data());
            next_.set_row(nf + i, row.data());
        }
        for (size_type i = 0; i < nb; ++i) next_.set_row(nf + nk + i, back.data() + i * n);
        next_.clear_padding();
        std::swap(cur_, next_);
        // Every moved image was live (its mask bit set) before the move.
        masks_.assign(cur_.tiles(), ~std::uint64_t{0});
    }

private:
    // After a kernel: cur_ holds the outputs. Note the live images (when anything died); the
    // next layer gathers them, or, with too few tiles to gather tile by tile, copy them now.
    void finish(LayerTimes& times) {
        Timer t;
        const int r = cur_.tile_width();
        const size_type count = cur_.count();
        const size_type live = count_live(masks_, count, r);
        if (compaction_ && live < count) {
            from_.clear();
            from_.reserve(live);
            for (size_type i = 0; i < count; ++i)
                if ((masks_[i / r] >> (i % r)) & 1) from_.push_back(i);
            pending_ = true;
            if (!fused_layer_gathers(live, r)) materialize();
        }
        times.compaction += t.seconds();
    }

    // Applies a pending compaction by copying the live images.
    void materialize() {
        if (!pending_) return;
        std::vector<std::uint64_t> masks(cur_.tiles(), 0);
        for (auto i : from_) masks[i / cur_.tile_width()] |= std::uint64_t{1} << (i % cur_.tile_width());
        compact(cur_, masks, next_);
        std::swap(cur_, next_);
        masks_.assign(cur_.tiles(), ~std::uint64_t{0});
        pending_ = false;
    }

    bool compaction_;
    TileActivations cur_, next_;
    std::vector<std::uint64_t> masks_;
    std::vector<size_type> from_;
    bool pending_ = false;
};

}  // namespace

std::unique_ptr<Engine> make_fused_engine(const EngineOptions& options) {
    return std::make_unique<FusedEngine>(options);
}

}  // namespace tessel::spdnn
