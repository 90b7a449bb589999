// One rank's live images through the layers: the kernel, the activations and the compaction
// behind one interface, so that the driver (inference.cpp) is the same for every kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/spdnn/network/network.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/types.hpp"

namespace tessel::spdnn {

/// Seconds of one layer on one rank, by phase.
struct LayerTimes {
    double kernel = 0;
    double compaction = 0;
};

/// What a device engine measured for one layer of a batch, read back once after the batch.
struct LayerRecord {
    size_type live = 0;     // live images after the layer (nonzero ones without compaction)
    double kernel = 0;      // device seconds of the layer kernel
    double compaction = 0;  // device seconds of the compaction
};

/// The kernels an engine can run, named for --kernel and the metrics.
enum class KernelChoice {
    automatic,  // fused on cpu, device tiled ELL on cuda
    fused,      // the app's fused tile kernel (cpu)
    core,       // core's tiled ELL SpMM on Yᵀ, then a separate compaction pass (cpu or cuda)
    cusparse    // cuSPARSE SpMM + a separate activation kernel (cuda baseline)
};

std::string_view to_string(KernelChoice kernel);
/// Parses "auto", "fused", "core", "cusparse". Throws InvalidInput.
KernelChoice parse_kernel(std::string_view name);

class Engine {
public:
    virtual ~Engine() = default;
    /// "cpu fused tiled-ELL R=32", ...
    virtual std::string name() const = 0;
    virtual int register_factor() const = 0;

    /// Layer k of resident weights (the same matrix for every batch), handed over once before
    /// the timed layers so that a device engine uploads it there. The default keeps nothing.
    virtual void keep_layer(size_type /*k*/, const TiledEll<Value, Index>& /*wt*/) {}
    /// After keep_layer and keep_images, before the timed layers: a device engine waits here for
    /// the work they enqueued (the resident layers' uploads and bank order), so that T does not
    /// include it. The default has nothing to wait for.
    virtual void finish_setup() {}
    /// The images, handed over once before the timed layers: a device engine page-locks their
    /// host arrays there, so that each batch's upload runs at pinned speed without holding the
    /// host. The default keeps nothing.
    virtual void keep_images(const Images& /*images*/) {}
    /// The batch's images, handed over before its layers (a device engine uploads them here,
    /// outside the layer loop); first_layer then gets the same images and rows.
    virtual void start_batch(const Images& /*images*/, const std::vector<std::int64_t>& /*rows*/) {}
    /// True when the engine keeps the live count on the device: count(), ids() and
    /// nonzero_ids() then wait for the device, and the driver reads the per-layer counts once
    /// per batch from batch_records() instead of count() after every layer.
    virtual bool deferred_counts() const { return false; }
    /// After a batch's last layer: each layer's live count and device times (deferred engines).
    virtual std::vector<LayerRecord> batch_records() { return {}; }
    /// Device seconds of the batches' images so far (copied up and scattered into the first
    /// layer's input), counted by batch_records(); 0 for host engines.
    virtual double images_seconds() const { return 0; }

    /// Layer 1 on the images with 0-based ids `rows` (ascending), then compaction.
    virtual void first_layer(const TiledEll<Value, Index>& wt, const Images& images,
                             const std::vector<std::int64_t>& rows, const Epilogue<Value>& ep,
                             LayerTimes& times) = 0;
    /// Layer k (0-based, k >= 1) on the live images, then compaction.
    virtual void layer(size_type k, const TiledEll<Value, Index>& wt, const Epilogue<Value>& ep,
                       LayerTimes& times) = 0;

    /// Allocates (and touches) the activation buffers for batches of up to `images` images,
    /// so that the timed inference does not pay for first-touch page faults.
    virtual void reserve(size_type images) = 0;

    /// Live images (all images when compaction is off).
    virtual size_type count() const = 0;
    /// 0-based ids of the live images, in their order.
    virtual std::vector<std::int64_t> ids() const = 0;
    /// Images whose activations are not all zero (equals count() with compaction on).
    virtual std::vector<std::int64_t> nonzero_ids() const = 0;

    /// Live images [begin, end) as dense rows ((end - begin) x N, row-major), for moving them.
    virtual void export_rows(size_type begin, size_type end, Value* rows) const = 0;
    /// The live set becomes: `front` rows, then the kept images [keep_begin, keep_end), then
    /// `back` rows (dense rows as export_rows writes them, with their ids).
    virtual void rebuild(const std::vector<Value>& front, const std::vector<std::int64_t>& front_ids,
                         size_type keep_begin, size_type keep_end, const std::vector<Value>& back,
                         const std::vector<std::int64_t>& back_ids) = 0;
};

struct EngineOptions {
    size_type neurons = 0;
    /// Images per register tile; 0 chooses (fused: 32, core: from the live count).
    int register_factor = 0;
    /// Drop images whose rows became all zero (only valid when bias <= 0).
    bool compaction = true;
    /// The same layer index always brings the same weights (resident weights): a device
    /// engine may keep its copy of layer k. False for streamed weights.
    bool weights_stable = true;
    /// Layers per batch (the cuda engine keeps one live count per layer on the device).
    size_type layers = 0;
    /// Output neurons per thread of the cuda layer kernel (1: the tiled kernel; 2, 4, 8: the
    /// row-group kernel on resident weights, best with the rows reordered).
    size_type row_groups = 1;
    /// With row_groups > 1: the layers that take the row-group kernel, the first this many (0:
    /// all); the later ones, with few live images, take the tiled kernel.
    size_type row_group_layers = 0;
};

/// The app's fused kernel on tile-major activations (fused_layer_kernels.hpp).
std::unique_ptr<Engine> make_fused_engine(const EngineOptions& options);

/// core's cpu::spmm_tiled_ell on Yᵀ (N x live, row-major), then compaction of the columns.
std::unique_ptr<Engine> make_core_engine(const EngineOptions& options);

/// The cuda engine (device-resident Yᵀ and weights; kernel core = core's device tiled ELL
/// kernel, cusparse = cuSPARSE SpMM + separate activation kernel; compaction on the device).
/// Throws NotCompiled in builds without CUDA, CudaError without a device.
std::unique_ptr<Engine> make_cuda_engine(const EngineOptions& options, KernelChoice kernel);

}  // namespace tessel::spdnn

// The app's device entry points, listed once for the stand-ins of builds without CUDA
// (cuda_stubs.cpp, TESSEL_CUDA_STUB_FUNCTION of core/cuda/entry_points.hpp).
#define TESSEL_SPDNN_CUDA_ENTRY_POINTS(X) \
    X(spdnn::make_cuda_engine, (std::unique_ptr<spdnn::Engine>), (const spdnn::EngineOptions&, spdnn::KernelChoice))
