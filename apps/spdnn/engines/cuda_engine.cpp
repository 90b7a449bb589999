// The cuda engine: Yᵀ, the live columns, their count and the images' ids stay on the device, so
// the host enqueues layer after layer without waiting (cuda_layer_kernels.hpp). Per layer:
// the fused layer kernel, whose last block compacts the live columns (or cuSPARSE SpMM +
// activation + a live-flag pass, the baseline, which reads the column count back to size
// cuSPARSE's call, then compact_live). The host reads the counts, the per-layer device times
// and the answer once per batch.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "apps/spdnn/engines/cuda_layer_kernels.hpp"
#include "apps/spdnn/engines/device_layers.hpp"
#include "apps/spdnn/engines/engine.hpp"
#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/error.hpp"
#include "core/formats/grouped_ell.hpp"
#include "core/kernels/column_compaction.hpp"

namespace tessel::spdnn {

namespace {

// --row-groups: 1 (the tiled kernel), or 2, 4, 8 for the core kernel on resident weights.
void check_row_groups_option(const EngineOptions& options, KernelChoice kernel) {
    const size_type g = options.row_groups;
    if (g != 1 && g != 2 && g != 4 && g != 8)
        TESSEL_INVALID_INPUT("--row-groups", 0, std::to_string(g) + " is not 1 (off), 2, 4 or 8");
    if (g == 1) return;
    if (kernel == KernelChoice::cusparse)
        TESSEL_INVALID_INPUT("--row-groups", 0, "row groups are the core kernel's (--kernel core), not cusparse's");
    if (!options.weights_stable)
        TESSEL_INVALID_INPUT("--row-groups", 0, "row groups need resident weights (not --stream-weights)");
}

class CudaEngine final : public Engine {
public:
    CudaEngine(const EngineOptions& options, KernelChoice kernel)
        : n_(options.neurons), register_factor_(options.register_factor), compaction_(options.compaction),
          stable_(options.weights_stable), cusparse_(kernel == KernelChoice::cusparse),
          layers_(std::max<size_type>(options.layers, 1)), row_groups_(options.row_groups),
          row_group_layers_(options.row_group_layers) {
        if (kernel == KernelChoice::fused)
            TESSEL_INVALID_INPUT("--kernel", 0, "fused is the cpu kernel; on cuda use core (tiled ELL) or cusparse");
        check_row_groups_option(options, kernel);
        if (!cuda::device_available()) TESSEL_THROW(CudaError, "backend cuda: no CUDA device is available");
        stream_.emplace();
        if (cusparse_) handle_ = std::make_unique<cuda::CusparseHandle>();
        counts_ = cuda::DeviceBuffer<std::int32_t>(layers_ + 1);
        arrived_ = cuda::DeviceBuffer<std::int32_t>(1);
        arrived_.fill_zero(stream());  // the layer kernel's last block leaves it zero
        host_count_.reserve(1);
    }
    ~CudaEngine() override {
        if (pinned_.empty()) return;
        (void)cudaStreamSynchronize(stream());  // the last uploads from them; never throws here
        for (void* p : pinned_) cuda::unregister_host_memory(p);
    }
    CudaEngine(const CudaEngine&) = delete;
    CudaEngine& operator=(const CudaEngine&) = delete;

    std::string name() const override {
        if (cusparse_) return "cuda cuSPARSE SpMM + separate activation kernel + compaction";
        // Once planned: the block size and the resident blocks the kernel variant is sized for.
        std::string variant;
        if (plan_)
            variant = "; blocks of " + std::to_string(plan_key_.block_rows) + " rows, stages of up to " +
                      std::to_string(plan_key_.stage_entries) + " inputs, kernel for " +
                      std::to_string(plan_->min_blocks) + " x " + std::to_string(plan_->variant_threads) +
                      " threads per SM";
        if (row_groups_ > 1)
            return "cuda fused row-group layer (" + std::to_string(row_groups_) + " neurons a thread" +
                   (row_group_layers_ > 0 ? " in the first " + std::to_string(row_group_layers_) + " layers, then tiled"
                                          : std::string()) +
                   ", staged gather, live flags" + variant + ") + compaction in its last block";
        return "cuda fused tiled-ELL layer (staged gather, live flags" + variant + ") + compaction in its last block";
    }
    int register_factor() const override { return cusparse_ ? 0 : (used_factor_ ? used_factor_ : register_factor_); }

    void reserve(size_type images) override { ensure(images); }

    void keep_layer(size_type k, const TiledEll<Value, Index>& wt) override {
        if (!stable_) return;
        if (cusparse_) {
            csr_[k] = std::make_unique<cuda::DeviceCsr<Value, Index>>(csr_from_tiled_ell(wt), stream());
        } else if (grouped(k)) {
            BankOrder order;  // the row-group kernel's quarter warps, on the host
            resident_.upload(k, group_rows(wt, row_groups_, &order), stream());
        } else {
            resident_.upload(k, wt, stream());
        }
    }

    void finish_setup() override { cuda::synchronize_stream(stream()); }

    // The images' columns and values page-locked (an H200, 1024 x 60000 images: the pageable
    // copy held the host 9 ms of a 25 ms inference). Where the runtime refuses, they stay pageable.
    // Images of one value (the Graph Challenge's are all 1) go up without values: a run of them
    // as bits by feature where they are denser than one pixel in 32 (packed and pinned here:
    // 7.7 MB for 60000 images at 1024 neurons, 31 MB at 4096, where their column indices are 22
    // and 90 MB), scattered ones as their pattern (an H200 at 1024 neurons: the images took 0.80
    // ms of T as a pattern, 1.24 with values; the bits not measured).
    void keep_images(const Images& images) override {
        const auto& v = images.values();
        uniform_.reset();
        if (all_equal(v)) uniform_ = Uniform{v.data(), v.front(), pattern_words(images.rows()) * n_ < images.nnz()};
        if (uniform_ && uniform_->bits) {
            host_bits_.reserve(pattern_words(images.rows()) * n_);
            cpu::pattern_bits(images.row_ptr().data(), images.col_idx().data(), images.rows(), n_, host_bits_.data());
        } else {
            pin(images.col_idx().data(), images.col_idx().size() * sizeof(Index));
        }
        if (!uniform_) pin(v.data(), v.size() * sizeof(Value));
    }

    void start_batch(const Images& images, const std::vector<std::int64_t>& rows) override {
        const size_type k = static_cast<size_type>(rows.size());
        // The last batch's row offsets and ids may still be going up from the pinned buffers.
        if (staged_) cuda::synchronize_event(images_marks_.at(2));
        ensure(k);
        rows_ = rows;
        images_marks_.record(0, stream());
        upload_images(images, rows);
        images_marks_.record(1, stream());
        images_timed_ = true;
        if (k > 0) {
            std::copy(rows.begin(), rows.end(), host_ids_.data());
            ids_[0].upload(host_ids_.data(), k, stream());
        }
        images_marks_.record(2, stream());
        staged_ = true;
        device::identity_columns(identity_.data(), counts_.data(), k, stream());
        p_ = 0;
        ids_at_ = 0;
        src_ = identity_.data();
        count_at_ = 0;
        upper_ = k;
        known_count_ = k;
        last_layer_ = -1;
        started_ = true;
        restart_marks_ = true;
    }

    void first_layer(const TiledEll<Value, Index>& wt, const Images& images, const std::vector<std::int64_t>& rows,
                     const Epilogue<Value>& ep, LayerTimes& times) override {
        if (!started_) start_batch(images, rows);
        started_ = false;
        run(0, wt, ep, times);
    }

    void layer(size_type k, const TiledEll<Value, Index>& wt, const Epilogue<Value>& ep, LayerTimes& times) override {
        run(k, wt, ep, times);
    }

    bool deferred_counts() const override { return true; }
    double images_seconds() const override { return images_seconds_; }

    std::vector<LayerRecord> batch_records() override {
        std::vector<LayerRecord> records(static_cast<std::size_t>(last_layer_ + 1));
        if (last_layer_ < 0) return records;
        cuda::synchronize_event(marks_.at(2 * last_layer_ + 2));
        std::vector<std::int32_t> counts(static_cast<std::size_t>(last_layer_ + 2));
        cuda::copy_to_host(counts.data(), counts_.data(), counts.size() * sizeof(std::int32_t), stream());
        cuda::synchronize_stream(stream());
        if (images_timed_) images_seconds_ += images_marks_.seconds(0, 1);  // before the last mark: done
        images_timed_ = false;
        for (size_type k = 0; k <= last_layer_; ++k) {
            auto& r = records[std::size_t(k)];
            r.live = counts[std::size_t(k + 1)];
            r.kernel = marks_.seconds(2 * k, 2 * k + 1);
            r.compaction = marks_.seconds(2 * k + 1, 2 * k + 2);
        }
        return records;
    }

    size_type count() const override { return compaction_ ? read_count(count_at_) : static_cast<size_type>(rows_.size()); }

    std::vector<std::int64_t> ids() const override {
        if (!compaction_) return rows_;
        std::vector<std::int64_t> out(static_cast<std::size_t>(read_count(count_at_)));
        ids_[ids_at_].download(out.data(), static_cast<size_type>(out.size()), stream());
        return out;
    }

    std::vector<std::int64_t> nonzero_ids() const override {
        if (compaction_ || last_layer_ < 0) return ids();
        // Without compaction, kept_ lists the nonzero columns of the last layer.
        std::vector<std::int32_t> kept(static_cast<std::size_t>(read_count(last_layer_ + 1)));
        kept_.download(kept.data(), static_cast<size_type>(kept.size()), stream());
        std::vector<std::int64_t> out(kept.size());
        for (std::size_t i = 0; i < kept.size(); ++i) out[i] = rows_[std::size_t(kept[i])];
        return out;
    }

    void export_rows(size_type begin, size_type end, Value* rows) const override {
        if (end <= begin) return;
        const size_type c = count();
        std::vector<std::int32_t> src(static_cast<std::size_t>(c));
        if (c > 0) cuda::copy_to_host(src.data(), src_, src.size() * sizeof(std::int32_t), stream());
        cuda::synchronize_stream(stream());
        const size_type width = upper_;
        std::vector<Value> host(static_cast<std::size_t>(n_ * width));
        cuda::copy_2d_to_host(host.data(), width * sizeof(Value), act_[p_].data(), capacity_ * sizeof(Value),
                              width * sizeof(Value), n_, stream());
        cuda::synchronize_stream(stream());
        for (size_type j = begin; j < end; ++j)
            for (size_type i = 0; i < n_; ++i) rows[(j - begin) * n_ + i] = host[i * width + src[j]];
    }

    void rebuild(const std::vector<Value>& front, const std::vector<std::int64_t>& front_ids, size_type keep_begin,
                 size_type keep_end, const std::vector<Value>& back, const std::vector<std::int64_t>& back_ids) override {
        const size_type nf = static_cast<size_type>(front_ids.size()), nk = keep_end - keep_begin;
        const size_type nb = static_cast<size_type>(back_ids.size()), k = nf + nk + nb;
        std::vector<Value> kept(static_cast<std::size_t>(nk * n_));
        export_rows(keep_begin, keep_end, kept.data());
        const auto old_ids = ids();
        std::vector<std::int64_t> ids(front_ids);
        ids.insert(ids.end(), old_ids.begin() + keep_begin, old_ids.begin() + keep_end);
        ids.insert(ids.end(), back_ids.begin(), back_ids.end());
        std::vector<Value> host(static_cast<std::size_t>(n_ * k));
        for (size_type i = 0; i < n_; ++i) {
            for (size_type j = 0; j < nf; ++j) host[i * k + j] = front[j * n_ + i];
            for (size_type j = 0; j < nk; ++j) host[i * k + nf + j] = kept[j * n_ + i];
            for (size_type j = 0; j < nb; ++j) host[i * k + nf + nk + j] = back[j * n_ + i];
        }
        ensure(k);
        cuda::copy_2d_to_device(act_[p_].data(), capacity_ * sizeof(Value), host.data(), k * sizeof(Value),
                                k * sizeof(Value), n_, stream());
        if (k > 0) ids_[ids_at_].upload(ids.data(), k, stream());
        device::identity_columns(identity_.data(), counts_.data() + count_at_, k, stream());
        src_ = identity_.data();
        rows_ = std::move(ids);
        upper_ = k;
        known_count_ = k;
        restart_marks_ = true;
        cuda::synchronize_stream(stream());  // the host vectors above die here
    }

private:
    cudaStream_t stream() const { return stream_->get(); }

    // Layer k runs in row groups.
    bool grouped(size_type k) const {
        return row_groups_ > 1 && (row_group_layers_ == 0 || k < row_group_layers_);
    }

    void ensure(size_type images) {
        if (capacity_ >= images && capacity_ > 0) return;
        // Rows of the activations a multiple of 16 bytes apart: the layer kernel's tiles go out
        // in 16-byte stores.
        capacity_ = std::max<size_type>((images + 3) / 4 * 4, 4);
        for (auto& a : act_) a = cuda::DeviceBuffer<Value>(n_ * capacity_);
        if (cusparse_) gathered_ = cuda::DeviceBuffer<Value>(n_ * capacity_);
        live_ = cuda::DeviceBuffer<std::int32_t>(capacity_);
        live_.fill_zero(stream());  // the compaction keeps it zero from here on
        kept_ = cuda::DeviceBuffer<std::int32_t>(capacity_);
        identity_ = cuda::DeviceBuffer<std::int32_t>(capacity_);
        for (auto& ids : ids_) ids = cuda::DeviceBuffer<std::int64_t>(capacity_);
        host_rp_.reserve(capacity_ + 1);
        host_ids_.reserve(capacity_);
    }

    // The batch's images scattered into act_[0] as columns 0 .. rows.size(). A run of consecutive
    // images (one rank, or a batch of them) goes up straight from the image matrix's arrays; only
    // scattered rows are packed on the host first (an H200: packing 60000 images of 16384 pixels
    // took most of a second, the layers 0.14 s).
    void upload_images(const Images& images, const std::vector<std::int64_t>& rows) {
        const size_type k = static_cast<size_type>(rows.size());
        const bool pattern = uniform_ && uniform_->values == images.values().data();
        bool consecutive = true;
        for (size_type j = 1; j < k && consecutive; ++j) consecutive = rows[j] == rows[0] + j;
        if (pattern && uniform_->bits && consecutive && k > 0) return upload_bits(images, rows.front(), k);
        // Row offsets through pinned memory: a pageable copy holds the host until it is staged
        // (a batch's start was 1.8 ms of the 18 at 1024 neurons on an H200).
        std::int64_t* rp = host_rp_.data();
        rp[0] = 0;
        std::vector<std::int32_t> col;
        std::vector<float> val;
        const std::int32_t* col_from = nullptr;
        const float* val_from = nullptr;
        if (consecutive && k > 0) {
            const size_type base = images.row_ptr()[rows.front()];
            for (size_type j = 0; j <= k; ++j) rp[j] = images.row_ptr()[rows.front() + j] - base;
            col_from = images.col_idx().data() + base;
            val_from = images.values().data() + base;
        } else {
            for (size_type j = 0; j < k; ++j) {
                for (size_type e = images.row_ptr()[rows[j]]; e < images.row_ptr()[rows[j] + 1]; ++e) {
                    col.push_back(images.col_idx()[e]);
                    if (!pattern) val.push_back(images.values()[e]);
                }
                rp[j + 1] = static_cast<std::int64_t>(col.size());
            }
            col_from = col.data();
            val_from = val.data();
        }
        const size_type entries = rp[static_cast<std::size_t>(k)];
        put(image_rp_, rp, k + 1);
        put(image_col_, col_from, entries);
        if (!pattern) put(image_val_, val_from, entries);
        act_[0].fill_zero(stream());
        const DenseView<Value> to(act_[0].data(), n_, k, Layout::row_major, capacity_);
        if (pattern)
            cuda::device::scatter_pattern_as_columns(image_rp_.data(), image_col_.data(), uniform_->value, to, stream());
        else
            cuda::device::scatter_rows_as_columns(image_rp_.data(), image_col_.data(), image_val_.data(), to, stream());
    }

    // True when v holds one number only (by all threads: one thread took 5-19 ms for the 22-90
    // MB of values of 60000 images at 1024-4096 neurons on the H200's host).
    static bool all_equal(const std::vector<Value>& v) {
        if (v.empty()) return false;
        const Value first = v.front();
        const auto n = static_cast<std::ptrdiff_t>(v.size());
        bool same = true;
#pragma omp parallel for schedule(static) reduction(&& : same)
        for (std::ptrdiff_t e = 0; e < n; ++e) same = same && v[std::size_t(e)] == first;
        return same;
    }

    // Images first .. first + k from the kept bits: the words that hold them up (one copy), then
    // expanded into act_[0], every entry written.
    void upload_bits(const Images& images, size_type first, size_type k) {
        const size_type words = pattern_words(images.rows());
        const size_type w0 = first / 32, taken = (first + k - 1) / 32 + 1 - w0;
        if (image_bits_.size() < taken * n_) image_bits_ = cuda::DeviceBuffer<std::uint32_t>(taken * n_);
        cuda::copy_2d_to_device(image_bits_.data(), taken * sizeof(std::uint32_t), host_bits_.data() + w0,
                                words * sizeof(std::uint32_t), taken * sizeof(std::uint32_t), n_, stream());
        cuda::device::expand_bits_as_columns(image_bits_.data(), taken, first % 32, uniform_->value,
                                             DenseView<Value>(act_[0].data(), n_, k, Layout::row_major, capacity_),
                                             stream());
    }

    // host[0 .. count) into buf, grown only when too small (no device-wide wait of a free per batch).
    template <typename T>
    void put(cuda::DeviceBuffer<T>& buf, const T* host, size_type count) {
        if (buf.size() < count) buf = cuda::DeviceBuffer<T>(count);
        buf.upload(host, count, stream());
    }

    void pin(const void* data, std::size_t bytes) {
        void* p = const_cast<void*>(data);  // page-locking leaves the contents alone
        if (bytes > 0 && cuda::register_host_memory(p, bytes)) pinned_.push_back(p);
    }

    // counts_[at], read back (4 bytes) with a wait: the cuSPARSE path, MPI and --verbose only.
    size_type read_count(size_type at) const {
        cuda::copy_to_host(host_count_.data(), counts_.data() + at, sizeof(std::int32_t), stream());
        cuda::synchronize_stream(stream());
        return *host_count_.data();
    }

    void run(size_type k, const TiledEll<Value, Index>& wt, const Epilogue<Value>& ep, LayerTimes&) {
        TESSEL_ENSURE_DIMS(k < layers_, "cuda engine: layer " + std::to_string(k + 1) + " of " +
                                            std::to_string(layers_) + " (EngineOptions::layers)");
        // Mark 2k is layer k-1's last mark unless other work came between (a new batch, rows
        // moved between ranks).
        if (restart_marks_ || k == 0) marks_.record(2 * k, stream());
        restart_marks_ = false;
        const Value* in = act_[p_].data();
        Value* out = act_[1 - p_].data();
        const std::int32_t* count = counts_.data() + count_at_;
        // The next layer's columns: the nonzero ones (compaction), else all of them again.
        std::int64_t* ids_out = compaction_ ? ids_[1 - ids_at_].data() : nullptr;
        const device::Compaction next{arrived_.data(), kept_.data(), counts_.data() + k + 1, ids_[ids_at_].data(),
                                      ids_out};
        if (cusparse_) {
            run_cusparse(k, wt, in, count, out, ep);
            device::compact_live(live_.data(), count, next, stream());
        } else {
            run_fused(k, wt, in, count, out, next, ep);  // compacts in its last block
        }
        if (compaction_) {
            src_ = kept_.data();
            count_at_ = k + 1;
            ids_at_ = 1 - ids_at_;
            known_count_.reset();
        }
        p_ = 1 - p_;
        last_layer_ = k;
        marks_.record(2 * k + 2, stream());
    }

    void run_fused(size_type k, const TiledEll<Value, Index>& wt, const Value* in, const std::int32_t* count, Value* out,
                   const device::Compaction& next, const Epilogue<Value>& ep) {
        const device::LayerArrays* resident = resident_.find(k);
        TESSEL_ENSURE_DIMS(resident || !grouped(k),
                           "cuda engine: layer " + std::to_string(k + 1) + " was not kept in row groups (keep_layer)");
        if (!resident && !streamed_) streamed_ = std::make_unique<StreamedLayers>();
        const device::LayerArrays arrays = resident ? *resident : streamed_->stage(wt, stream());
        TESSEL_ENSURE_DIMS(arrays.rows == n_, "cuda engine: layer " + std::to_string(k + 1) + " has " +
                                                  std::to_string(arrays.rows) + " rows, the network " +
                                                  std::to_string(n_) + " neurons");
        const device::LayerLaunch& launch = plan(arrays);
        used_factor_ = launch.register_factor;
        const device::Columns columns{in, src_, count, out, live_.data(), capacity_};
        if (arrays.group > 1)
            device::grouped_layer(arrays, columns, next, ep, launch, stream());
        else
            device::fused_layer(arrays, columns, next, ep, launch, stream());
        if (!resident) streamed_->done_with(stream());
        marks_.record(2 * k + 1, stream());
    }

    // The launch for a layer of this shape and the batch's column bound, planned once (the
    // layers of a network share their shape).
    const device::LayerLaunch& plan(const device::LayerArrays& arrays) {
        const PlanKey key{arrays.max_stage_entries, arrays.block_rows, arrays.num_blocks, upper_, arrays.group};
        if (!plan_ || !(plan_key_ == key)) {
            plan_ = arrays.group > 1 ? device::plan_grouped_layer(arrays, upper_, register_factor_)
                                     : device::plan_layer(arrays, upper_, register_factor_);
            plan_key_ = key;
        }
        return *plan_;
    }

    // cuSPARSE needs the column count on the host: read once per layer (4 bytes).
    void run_cusparse(size_type k, const TiledEll<Value, Index>& wt, const Value* in, const std::int32_t* count,
                      Value* out, const Epilogue<Value>& ep) {
        const size_type columns = known_count_ ? *known_count_ : read_count(count_at_);
        const Value* b = in;
        if (src_ != identity_.data()) {
            device::gather_columns(in, src_, count, gathered_.data(), n_, capacity_, upper_, stream());
            b = gathered_.data();
        }
        const cuda::DeviceCsr<Value, Index>& csr = device_csr(k, wt);
        if (columns > 0)
            cuda::device::spmm_cusparse(csr, DenseView<const Value>(b, n_, columns, Layout::row_major, capacity_),
                                        DenseView<Value>(out, n_, columns, Layout::row_major, capacity_), ep, stream(),
                                        handle_.get());
        marks_.record(2 * k + 1, stream());
        device::mark_live(out, count, live_.data(), n_, capacity_, upper_, stream());
    }

    const cuda::DeviceCsr<Value, Index>& device_csr(size_type k, const TiledEll<Value, Index>& wt) {
        auto& slot = csr_[k];
        if (!slot) {
            // Streamed (or not kept): the previous layer's matrix is freed once the device is
            // done with it (cudaFree waits), then this one is uploaded.
            if (!stable_) csr_.clear();
            auto& fresh = csr_[k];
            fresh = std::make_unique<cuda::DeviceCsr<Value, Index>>(csr_from_tiled_ell(wt), stream());
            return *fresh;
        }
        return *slot;
    }

    size_type n_;
    int register_factor_;
    bool compaction_;
    bool stable_;
    bool cusparse_;
    size_type layers_;
    size_type row_groups_;
    size_type row_group_layers_;
    int used_factor_ = 0;
    std::optional<cuda::Stream> stream_;
    std::unique_ptr<cuda::CusparseHandle> handle_;
    size_type capacity_ = 0;
    // Activations: act_[p_] holds the latest output (or the scattered images); the next layer
    // takes its columns src_[0 .. counts_[count_at_]).
    cuda::DeviceBuffer<Value> act_[2], gathered_;
    cuda::DeviceBuffer<std::int32_t> live_, kept_, identity_, counts_;
    cuda::DeviceBuffer<std::int32_t> arrived_;  // the fused layer's blocks done (device::Compaction)
    cuda::DeviceBuffer<std::int64_t> ids_[2];
    cuda::DeviceBuffer<std::int64_t> image_rp_;
    cuda::DeviceBuffer<std::int32_t> image_col_;
    cuda::DeviceBuffer<float> image_val_;
    std::vector<void*> pinned_;  // the images' host arrays page-locked by keep_images
    struct Uniform {
        const Value* values;  // the kept images' values, all equal to value
        Value value;
        bool bits;            // their bits by feature are in host_bits_
    };
    std::optional<Uniform> uniform_;
    cuda::PinnedBuffer<std::uint32_t> host_bits_;  // pattern_bits of the kept images
    cuda::DeviceBuffer<std::uint32_t> image_bits_;
    mutable cuda::PinnedBuffer<std::int32_t> host_count_;
    cuda::PinnedBuffer<std::int64_t> host_rp_, host_ids_;  // a batch's row offsets and ids on their way up
    bool staged_ = false;  // a batch's copies from them are enqueued (images_marks_ 2 after them)
    int p_ = 0, ids_at_ = 0;
    const std::int32_t* src_ = nullptr;
    size_type count_at_ = 0;
    size_type upper_ = 0;                    // no more columns than this in the batch
    std::optional<size_type> known_count_;   // the column count when the host knows it
    size_type last_layer_ = -1;
    bool started_ = false;
    bool restart_marks_ = true;
    std::vector<std::int64_t> rows_;  // the batch's image ids (without compaction: the columns)
    // 2k before layer k, 2k+1 between its kernel and the cuSPARSE path's compaction, 2k+2 after
    // (the fused layer compacts in its kernel: nothing between 2k+1 and 2k+2).
    cuda::EventMarks marks_;
    cuda::EventMarks images_marks_;  // 0 before a batch's images go up, 1 once they are scattered, 2 after the ids
    bool images_timed_ = false;    // the batch's pair is recorded and not yet read
    double images_seconds_ = 0;    // device seconds of every batch's images so far
    struct PlanKey {
        size_type stage_entries = 0, block_rows = 0, blocks = 0, columns = 0, group = 1;
        bool operator==(const PlanKey&) const = default;
    };
    PlanKey plan_key_;
    std::optional<device::LayerLaunch> plan_;
    ResidentLayers resident_;
    std::unique_ptr<StreamedLayers> streamed_;
    std::map<size_type, std::unique_ptr<cuda::DeviceCsr<Value, Index>>> csr_;
};

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(const EngineOptions& options, KernelChoice kernel) {
    return std::make_unique<CudaEngine>(options, kernel);
}

}  // namespace tessel::spdnn
