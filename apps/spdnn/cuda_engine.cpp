// The cuda engine: Yᵀ (N x live, row-major) and the weights stay on the device; each layer is
// core's device tiled ELL kernel with the fused epilogue (or cuSPARSE SpMM + a separate
// activation kernel, the baseline), then live columns are found and gathered on the device.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "apps/spdnn/engine.hpp"
#include "apps/spdnn/kept_columns.hpp"
#include "core/cuda/device_spmm.hpp"
#include "core/error.hpp"
#include "core/kernels/column_compaction.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/operator/spmm_operator.hpp"
#include "core/timer.hpp"

namespace tessel::spdnn {

namespace {

class CudaEngine final : public Engine {
public:
    CudaEngine(const EngineOptions& options, KernelChoice kernel)
        : n_(options.neurons), register_factor_(options.register_factor), compaction_(options.compaction),
          stable_(options.weights_stable), cusparse_(kernel == KernelChoice::cusparse) {
        if (kernel == KernelChoice::fused)
            TESSEL_INVALID_INPUT("--kernel", 0, "fused is the cpu kernel; on cuda use core (tiled ELL) or cusparse");
        if (!cuda::device_available()) TESSEL_THROW(CudaError, "backend cuda: no CUDA device is available");
        stream_ = stream_holder_.emplace(cudaStreamDefault).get();
        if (cusparse_) handle_ = std::make_unique<cuda::CusparseHandle>();
    }
    std::string name() const override {
        return cusparse_ ? "cuda cuSPARSE SpMM + separate activation kernel + compaction"
                         : "cuda tiled-ELL (shared-memory staging, register tiles) + compaction";
    }
    int register_factor() const override { return cusparse_ ? 0 : (used_factor_ ? used_factor_ : register_factor_); }

    void reserve(size_type images) override { ensure(images); }

    void first_layer(const TiledEll<Value, Index>& wt, const Images& images, const std::vector<std::int64_t>& rows,
                     const Epilogue<Value>& ep, LayerTimes& times) override {
        Timer t;
        k_ = static_cast<size_type>(rows.size());
        ids_ = rows;
        ensure(k_);
        // The images' CSR rows, uploaded and scattered into Yᵀ.
        std::vector<std::int64_t> rp(k_ + 1, 0);
        std::vector<std::int32_t> col;
        std::vector<float> val;
        for (size_type j = 0; j < k_; ++j) {
            for (size_type e = images.row_ptr()[rows[j]]; e < images.row_ptr()[rows[j] + 1]; ++e) {
                col.push_back(images.col_idx()[e]);
                val.push_back(images.values()[e]);
            }
            rp[j + 1] = static_cast<std::int64_t>(col.size());
        }
        cuda::DeviceBuffer<std::int64_t> d_rp(rp.data(), k_ + 1, stream_);
        cuda::DeviceBuffer<std::int32_t> d_col(col.data(), static_cast<size_type>(col.size()), stream_);
        cuda::DeviceBuffer<float> d_val(val.data(), static_cast<size_type>(val.size()), stream_);
        TESSEL_CUDA_CHECK(cudaMemsetAsync(b_.data(), 0, sizeof(float) * n_ * k_, stream_));
        cuda::device::scatter_rows_as_columns(d_rp.data(), d_col.data(), d_val.data(),
                                              DenseView<Value>(b_.data(), n_, k_), stream_);
        run(0, wt, ep, times, t);
    }

    void layer(size_type k, const TiledEll<Value, Index>& wt, const Epilogue<Value>& ep, LayerTimes& times) override {
        Timer t;
        run(k, wt, ep, times, t);
    }

    size_type count() const override { return k_; }
    std::vector<std::int64_t> ids() const override { return ids_; }
    std::vector<std::int64_t> nonzero_ids() const override { return live_ids(ids_, live_); }

    void export_rows(size_type begin, size_type end, Value* rows) const override {
        std::vector<float> host(static_cast<std::size_t>(n_ * k_));
        b_.download(host.data(), n_ * k_, stream_);
        for (size_type j = begin; j < end; ++j)
            for (size_type i = 0; i < n_; ++i) rows[(j - begin) * n_ + i] = host[i * k_ + j];
    }

    void rebuild(const std::vector<Value>& front, const std::vector<std::int64_t>& front_ids, size_type keep_begin,
                 size_type keep_end, const std::vector<Value>& back, const std::vector<std::int64_t>& back_ids) override {
        const size_type nf = static_cast<size_type>(front_ids.size()), nk = keep_end - keep_begin;
        const size_type nb = static_cast<size_type>(back_ids.size()), k = nf + nk + nb;
        std::vector<float> old(static_cast<std::size_t>(n_ * k_)), host(static_cast<std::size_t>(n_ * k));
        b_.download(old.data(), n_ * k_, stream_);
        for (size_type i = 0; i < n_; ++i) {
            for (size_type j = 0; j < nf; ++j) host[i * k + j] = front[j * n_ + i];
            for (size_type j = 0; j < nk; ++j) host[i * k + nf + j] = old[i * k_ + keep_begin + j];
            for (size_type j = 0; j < nb; ++j) host[i * k + nf + nk + j] = back[j * n_ + i];
        }
        std::vector<std::int64_t> ids(front_ids);
        ids.insert(ids.end(), ids_.begin() + keep_begin, ids_.begin() + keep_end);
        ids.insert(ids.end(), back_ids.begin(), back_ids.end());
        ids_ = std::move(ids);
        k_ = k;
        ensure(k_);
        b_.upload(host.data(), n_ * k_, stream_);
        TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream_));
        live_.assign(k_, 1);
    }

private:
    void ensure(size_type images) {
        if (capacity_ >= images) return;
        capacity_ = std::max<size_type>(images, 1);
        b_ = cuda::DeviceBuffer<float>(n_ * capacity_);
        c_ = cuda::DeviceBuffer<float>(n_ * capacity_);
        live_d_ = cuda::DeviceBuffer<int>(capacity_);
        src_d_ = cuda::DeviceBuffer<std::int64_t>(capacity_);
    }

    // Layer k as core's operator, resident on the device (kept for stable weights, replaced
    // layer by layer for streamed ones).
    SpmmOperator<Value, Index>& device_operator(size_type k, const TiledEll<Value, Index>& wt) {
        const SpmmOperatorConfig config{Backend::cuda, SparseFormat::tiled_ell, wt.config, register_factor_};
        if (stable_) {
            auto& slot = ell_[k];
            if (!slot) slot = std::make_unique<SpmmOperator<Value, Index>>(wt, config);
            return *slot;
        }
        streamed_ell_ = std::make_unique<SpmmOperator<Value, Index>>(wt, config);
        return *streamed_ell_;
    }
    const cuda::DeviceCsr<Value, Index>& device_csr(size_type k, const TiledEll<Value, Index>& wt) {
        if (stable_) {
            auto& slot = csr_[k];
            if (!slot) slot = std::make_unique<cuda::DeviceCsr<Value, Index>>(csr_from_tiled_ell(wt), stream_);
            return *slot;
        }
        streamed_csr_ = std::make_unique<cuda::DeviceCsr<Value, Index>>(csr_from_tiled_ell(wt), stream_);
        return *streamed_csr_;
    }

    void run(size_type k, const TiledEll<Value, Index>& wt, const Epilogue<Value>& ep, LayerTimes& times, Timer& t) {
        if (k_ > 0) {
            DenseView<const Value> b(b_.data(), n_, k_);
            DenseView<Value> c(c_.data(), n_, k_);
            if (cusparse_) {
                cuda::device::spmm_cusparse(device_csr(k, wt), b, c, ep, stream_, handle_.get());
            } else {
                auto& op = device_operator(k, wt);
                op.multiply_device(b, c, ep, stream_);
                used_factor_ = op.last_register_factor();
            }
        }
        TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream_));
        times.kernel += t.seconds();
        t.restart();
        live_.assign(k_, 0);
        if (k_ > 0) {
            TESSEL_CUDA_CHECK(cudaMemsetAsync(live_d_.data(), 0, sizeof(int) * k_, stream_));
            cuda::device::mark_live_columns(DenseView<const Value>(c_.data(), n_, k_), live_d_.data(), stream_);
            std::vector<int> live(k_);
            live_d_.download(live.data(), k_, stream_);
            for (size_type j = 0; j < k_; ++j) live_[j] = static_cast<char>(live[j]);
        }
        const std::vector<std::int64_t> keep = kept_columns<std::int64_t>(live_);
        const size_type k_new = static_cast<size_type>(keep.size());
        if (!compaction_ || k_new == k_) {
            std::swap(b_, c_);
        } else {
            if (k_new > 0) {
                src_d_.upload(keep.data(), k_new, stream_);
                cuda::device::gather_columns(DenseView<const Value>(c_.data(), n_, k_), src_d_.data(),
                                             DenseView<Value>(b_.data(), n_, k_new), stream_);
                TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream_));
            }
            keep_ids(ids_, keep);
            k_ = k_new;
            live_.assign(k_, 1);
        }
        times.compaction += t.seconds();
    }

    size_type n_;
    int register_factor_;
    bool compaction_;
    bool stable_;
    bool cusparse_;
    int used_factor_ = 0;
    // Blocking: the operators' uploads on the legacy stream are ordered before its kernels.
    std::optional<cuda::Stream> stream_holder_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<cuda::CusparseHandle> handle_;
    size_type capacity_ = 0;
    size_type k_ = 0;
    std::vector<std::int64_t> ids_;
    std::vector<char> live_;
    cuda::DeviceBuffer<float> b_, c_;
    cuda::DeviceBuffer<int> live_d_;
    cuda::DeviceBuffer<std::int64_t> src_d_;
    std::map<size_type, std::unique_ptr<SpmmOperator<Value, Index>>> ell_;
    std::map<size_type, std::unique_ptr<cuda::DeviceCsr<Value, Index>>> csr_;
    std::unique_ptr<SpmmOperator<Value, Index>> streamed_ell_;
    std::unique_ptr<cuda::DeviceCsr<Value, Index>> streamed_csr_;
};

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(const EngineOptions& options, KernelChoice kernel) {
    return std::make_unique<CudaEngine>(options, kernel);
}

}  // namespace tessel::spdnn
