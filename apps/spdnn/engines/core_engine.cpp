// The engine around core's tiled ELL SpMM: Zᵀ = Wᵀ·Yᵀ with Yᵀ the N x live row-major matrix
// (live images as the K columns), the epilogue fused in core's kernel, then a separate pass
// that finds the all-zero columns and copies the live ones into the next Yᵀ.
#include <algorithm>

#include "apps/spdnn/engines/engine.hpp"
#include "apps/spdnn/engines/kept_columns.hpp"
#include "core/aligned_allocator.hpp"
#include "core/error.hpp"
#include "core/kernels/column_compaction.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::spdnn {

namespace {

class CoreEngine final : public Engine {
public:
    explicit CoreEngine(const EngineOptions& options)
        : n_(options.neurons), register_factor_(options.register_factor), compaction_(options.compaction) {
        if (register_factor_ != 0 && register_factor_ != 4 && register_factor_ != 8 &&
            register_factor_ != 16 && register_factor_ != 32)
            TESSEL_INVALID_INPUT("--register", 0,
                                 std::to_string(register_factor_) +
                                     " is not one of core's tiled ELL factors 4, 8, 16, 32");
    }

    std::string name() const override { return "cpu core tiled-ELL SpMM + compaction pass"; }
    // core's kernel narrows the tile itself when fewer than 32 images are live.
    int register_factor() const override { return register_factor_ ? register_factor_ : 32; }

    void first_layer(const TiledEll<Value, Index>& wt, const Images& images,
                     const std::vector<std::int64_t>& rows, const Epilogue<Value>& ep,
                     LayerTimes& times) override {
        Timer t;
        k_ = static_cast<size_type>(rows.size());
        ids_ = rows;
        b_.assign(static_cast<std::size_t>(n_ * k_), Value(0));
#pragma omp parallel for schedule(static)
        for (size_type j = 0; j < k_; ++j)
            for (size_type e = images.row_ptr()[rows[j]]; e < images.row_ptr()[rows[j] + 1]; ++e)
                b_[size_type(images.col_idx()[e]) * k_ + j] = images.values()[e];
        run(wt, ep, times, t);
    }

    void layer(size_type, const TiledEll<Value, Index>& wt, const Epilogue<Value>& ep, LayerTimes& times) override {
        Timer t;
        run(wt, ep, times, t);
    }

    void reserve(size_type images) override {
        b_.assign(static_cast<std::size_t>(n_ * images), Value(0));
        c_.assign(static_cast<std::size_t>(n_ * images), Value(0));
        b_.clear();
        c_.clear();
    }

    size_type count() const override { return k_; }
    std::vector<std::int64_t> ids() const override { return ids_; }
    std::vector<std::int64_t> nonzero_ids() const override { return live_ids(ids_, live_); }

    void export_rows(size_type begin, size_type end, Value* rows) const override {
#pragma omp parallel for schedule(static)
        for (size_type j = begin; j < end; ++j)
            for (size_type i = 0; i < n_; ++i) rows[(j - begin) * n_ + i] = b_[i * k_ + j];
    }

    void rebuild(const std::vector<Value>& front, const std::vector<std::int64_t>& front_ids,
                 size_type keep_begin, size_type keep_end, const std::vector<Value>& back,
                 const std::vector<std::int64_t>& back_ids) override {
        const size_type nf = static_cast<size_type>(front_ids.size()), nk = keep_end - keep_begin;
        const size_type nb = static_cast<size_type>(back_ids.size()), k = nf + nk + nb;
        c_.assign(static_cast<std::size_t>(n_ * k), Value(0));
        for (size_type i = 0; i < n_; ++i) {
            Value* out = c_.data() + i * k;
            for (size_type j = 0; j < nf; ++j) out[j] = front[j * n_ + i];
            for (size_type j = 0; j < nk; ++j) out[nf + j] = b_[i * k_ + keep_begin + j];
            for (size_type j = 0; j < nb; ++j) out[nf + nk + j] = back[j * n_ + i];
        }
        std::vector<std::int64_t> ids;
        ids.insert(ids.end(), front_ids.begin(), front_ids.end());
        ids.insert(ids.end(), ids_.begin() + keep_begin, ids_.begin() + keep_end);
        ids.insert(ids.end(), back_ids.begin(), back_ids.end());
        ids_ = std::move(ids);
        k_ = k;
        std::swap(b_, c_);
        live_.assign(k_, 1);
    }

private:
    void run(const TiledEll<Value, Index>& wt, const Epilogue<Value>& ep, LayerTimes& times, Timer& t) {
        c_.resize(static_cast<std::size_t>(n_ * k_));
        if (k_ > 0) {
            DenseView<const Value> b(b_.data(), n_, k_);
            DenseView<Value> c(c_.data(), n_, k_);
            cpu::spmm_tiled_ell<Value, Index>(wt, b, c, ep,
                                              register_factor_ ? register_factor_ : cpu::choose_register_factor(k_));
        }
        times.kernel += t.seconds();
        t.restart();
        // Columns (images) with any nonzero (core's column pass, the cuda engine's twin).
        std::vector<int> live(static_cast<std::size_t>(k_));
        cpu::mark_live_columns(DenseView<const Value>(c_.data(), n_, k_), live.data());
        live_.assign(live.begin(), live.end());
        const std::vector<size_type> keep = kept_columns<size_type>(live_);
        const size_type k = static_cast<size_type>(keep.size());
        if (!compaction_ || k == k_) {
            std::swap(b_, c_);
        } else {
            b_.resize(static_cast<std::size_t>(n_ * k));
            cpu::gather_columns(DenseView<const Value>(c_.data(), n_, k_), keep.data(), DenseView<Value>(b_.data(), n_, k));
            keep_ids(ids_, keep);
            k_ = k;
            live_.assign(k_, 1);
        }
        times.compaction += t.seconds();
    }

    size_type n_;
    int register_factor_;
    bool compaction_;
    size_type k_ = 0;
    std::vector<std::int64_t> ids_;
    std::vector<char> live_;
    std::vector<Value, AlignedAllocator<Value>> b_, c_;
};

}  // namespace

std::unique_ptr<Engine> make_core_engine(const EngineOptions& options) {
    return std::make_unique<CoreEngine>(options);
}

}  // namespace tessel::spdnn
