// The layers' Wᵀ on the device for the cuda engine: resident layers uploaded once, straight
// from the host's tiled ELL arrays (no host copy); streamed layers packed into one of two
// pinned buffers and copied on a second stream while the previous layer runs, ordered with
// events (the copy waits until the layer that last used its device buffer has finished; the
// layer waits for its copy).
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "apps/spdnn/engines/device_layers.hpp needs a build with the CUDA backend"
#endif

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>

#include "apps/spdnn/engines/cuda_layer_kernels.hpp"
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/formats/grouped_ell.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel::spdnn {

/// Byte offsets of a layer's arrays in one packed block (each 256-byte aligned).
struct LayerPacking {
    size_type buffdispl = 0, mapdispl = 0, map = 0, warpdispl = 0, index = 0, values = 0;
    size_type bytes = 0;
    /// Throws InvalidInput for half values (spdnn's layers are single precision).
    static LayerPacking of(const TiledEll<Value, Index>& wt);
    static LayerPacking of(const GroupedEll<Value, Index>& wt);
};

/// The device arrays of `wt` packed at `base` (device memory).
device::LayerArrays layer_arrays(const TiledEll<Value, Index>& wt, const LayerPacking& packing, const std::byte* base);
device::LayerArrays layer_arrays(const GroupedEll<Value, Index>& wt, const LayerPacking& packing,
                                 const std::byte* base);

/// Every layer kept on the device, uploaded once.
class ResidentLayers {
public:
    /// Uploads layer k (pageable copies straight from wt's arrays, ordered on `stream`).
    void upload(size_type k, const TiledEll<Value, Index>& wt, cudaStream_t stream);
    /// Uploads layer k in row groups (its slots already in bank order: group_rows), then waits
    /// for the copies (the host arrays are the caller's temporaries).
    void upload(size_type k, const GroupedEll<Value, Index>& wt, cudaStream_t stream);
    /// Layer k, or null when it was not uploaded.
    const device::LayerArrays* find(size_type k) const;

private:
    struct Layer {
        cuda::DeviceBuffer<std::byte> bytes;
        device::LayerArrays arrays;
    };
    template <typename Matrix>
    Layer copy_up(const Matrix& wt, const LayerPacking& packing, cudaStream_t stream);
    std::map<size_type, Layer> layers_;
};

/// Layers streamed through two pinned buffers and two device buffers on a copy stream.
class StreamedLayers {
public:
    StreamedLayers();
    ~StreamedLayers();
    StreamedLayers(const StreamedLayers&) = delete;
    StreamedLayers& operator=(const StreamedLayers&) = delete;

    /// Packs wt into the next pinned buffer (the host waits only for that buffer's previous
    /// copy, two layers back), copies it on the copy stream once the layer that used the
    /// device buffer before is done on `compute`, and makes `compute` wait for the copy.
    /// Returns the layer's device arrays; call done_with(compute) after enqueuing its kernel.
    device::LayerArrays stage(const TiledEll<Value, Index>& wt, cudaStream_t compute);
    /// The layer staged last is read by work enqueued on `compute` so far.
    void done_with(cudaStream_t compute);

private:
    struct Slot {
        cuda::PinnedBuffer<std::byte> pinned;
        cuda::DeviceBuffer<std::byte> device;
        cudaEvent_t copied = nullptr;  // the copy from `pinned` has finished
        cudaEvent_t used = nullptr;    // the layers reading `device` have finished
        bool in_flight = false;        // events recorded and not yet waited for
    };
    cuda::Stream copy_;
    Slot slot_[2];
    int next_ = 0;
};

}  // namespace tessel::spdnn
