// Resident and streamed layers on the device (device_layers.hpp).
#include "apps/spdnn/engines/device_layers.hpp"

#include <cstring>

#include "core/cuda/device_formats.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/error.hpp"

namespace tessel::spdnn {

namespace {

constexpr size_type alignment = 256;

size_type aligned(size_type bytes) { return (bytes + alignment - 1) / alignment * alignment; }

template <typename T>
size_type bytes_of(size_type count) {
    return count * size_type(sizeof(T));
}

// The host arrays of wt with their offsets, in packing order.
struct Part {
    const void* host;
    size_type offset;
    size_type bytes;
};

template <typename Matrix>
std::vector<Part> parts(const Matrix& wt, const LayerPacking& p) {
    return {{wt.buffdispl.data(), p.buffdispl, bytes_of<size_type>(size_type(wt.buffdispl.size()))},
            {wt.mapdispl.data(), p.mapdispl, bytes_of<size_type>(size_type(wt.mapdispl.size()))},
            {wt.map.data(), p.map, bytes_of<Index>(size_type(wt.map.size()))},
            {wt.warpdispl.data(), p.warpdispl, bytes_of<size_type>(size_type(wt.warpdispl.size()))},
            {wt.index.data(), p.index, bytes_of<std::uint16_t>(wt.index.size())},
            {wt.values.data(), p.values, bytes_of<Value>(wt.values.size())}};
}

// The packing of either form: its arrays one after another, each aligned.
template <typename Matrix>
LayerPacking packing_of(const Matrix& wt) {
    if (wt.stores_half())
        TESSEL_INVALID_INPUT("layer weights", 0, "half values are not supported by the spdnn cuda engine");
    LayerPacking p;
    size_type at = 0;
    auto place = [&](size_type& offset, size_type bytes) {
        offset = at;
        at += aligned(bytes);
    };
    place(p.buffdispl, bytes_of<size_type>(size_type(wt.buffdispl.size())));
    place(p.mapdispl, bytes_of<size_type>(size_type(wt.mapdispl.size())));
    place(p.map, bytes_of<Index>(size_type(wt.map.size())));
    place(p.warpdispl, bytes_of<size_type>(size_type(wt.warpdispl.size())));
    place(p.index, bytes_of<std::uint16_t>(wt.index.size()));
    place(p.values, bytes_of<Value>(wt.values.size()));
    p.bytes = std::max<size_type>(at, alignment);
    return p;
}

// The arrays either form shares, at `base`.
template <typename Matrix>
device::LayerArrays arrays_at(const Matrix& wt, const LayerPacking& p, const std::byte* base) {
    device::LayerArrays a;
    a.rows = wt.rows;
    a.num_blocks = wt.num_blocks();
    a.max_stage_entries = wt.max_stage_entries();
    a.buffdispl = reinterpret_cast<const size_type*>(base + p.buffdispl);
    a.mapdispl = reinterpret_cast<const size_type*>(base + p.mapdispl);
    a.map = reinterpret_cast<const Index*>(base + p.map);
    a.warpdispl = reinterpret_cast<const size_type*>(base + p.warpdispl);
    a.index = reinterpret_cast<const std::uint16_t*>(base + p.index);
    a.values = reinterpret_cast<const Value*>(base + p.values);
    return a;
}

void create_event(cudaEvent_t& event) { TESSEL_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming)); }

}  // namespace

LayerPacking LayerPacking::of(const TiledEll<Value, Index>& wt) { return packing_of(wt); }
LayerPacking LayerPacking::of(const GroupedEll<Value, Index>& wt) { return packing_of(wt); }

device::LayerArrays layer_arrays(const TiledEll<Value, Index>& wt, const LayerPacking& p, const std::byte* base) {
    device::LayerArrays a = arrays_at(wt, p, base);
    a.block_rows = wt.config.block_rows;
    return a;
}

device::LayerArrays layer_arrays(const GroupedEll<Value, Index>& wt, const LayerPacking& p, const std::byte* base) {
    device::LayerArrays a = arrays_at(wt, p, base);
    a.group = wt.group;
    a.block_rows = wt.block_rows;
    return a;
}

template <typename Matrix>
ResidentLayers::Layer ResidentLayers::copy_up(const Matrix& wt, const LayerPacking& p, cudaStream_t stream) {
    Layer layer{cuda::DeviceBuffer<std::byte>(p.bytes), {}};
    for (const Part& part : parts(wt, p))
        cuda::copy_to_device(layer.bytes.data() + part.offset, part.host, std::size_t(part.bytes), stream);
    layer.arrays = layer_arrays(wt, p, layer.bytes.data());
    return layer;
}

void ResidentLayers::upload(size_type k, const TiledEll<Value, Index>& wt, cudaStream_t stream) {
    const LayerPacking p = LayerPacking::of(wt);
    Layer layer = copy_up(wt, p, stream);
    // Resident layers are read every batch: their slots go in shared-memory bank order once,
    // on the device (the sums of a row's entries are exact for the Graph Challenge's weights,
    // so the answer is the same bit for bit).
    std::byte* base = layer.bytes.data();
    cuda::order_device_slots_for_banks(reinterpret_cast<const size_type*>(base + p.warpdispl),
                                       static_cast<size_type>(wt.warpdispl.size()) - 1,
                                       reinterpret_cast<std::uint16_t*>(base + p.index),
                                       reinterpret_cast<Value*>(base + p.values), stream);
    layers_[k] = std::move(layer);
}

void ResidentLayers::upload(size_type k, const GroupedEll<Value, Index>& wt, cudaStream_t stream) {
    layers_[k] = copy_up(wt, LayerPacking::of(wt), stream);
    cuda::synchronize_stream(stream);  // wt's arrays are the caller's temporaries
}

const device::LayerArrays* ResidentLayers::find(size_type k) const {
    const auto it = layers_.find(k);
    return it == layers_.end() ? nullptr : &it->second.arrays;
}

StreamedLayers::StreamedLayers() {
    for (Slot& s : slot_) {
        create_event(s.copied);
        create_event(s.used);
    }
}

StreamedLayers::~StreamedLayers() {
    for (Slot& s : slot_) {
        cudaEventDestroy(s.copied);
        cudaEventDestroy(s.used);
    }
}

device::LayerArrays StreamedLayers::stage(const TiledEll<Value, Index>& wt, cudaStream_t compute) {
    Slot& s = slot_[next_];
    const LayerPacking p = LayerPacking::of(wt);
    // The pinned buffer is rewritten below: its last copy (two layers back) must have left it.
    if (s.in_flight) cuda::synchronize_event(s.copied);
    if (s.device.size() < p.bytes) {
        // A larger device buffer: the layers that read the old one must be done before it goes.
        if (s.in_flight) cuda::synchronize_event(s.used);
        s.device = cuda::DeviceBuffer<std::byte>(p.bytes);
    }
    s.pinned.reserve(p.bytes);
    for (const Part& part : parts(wt, p))
        if (part.bytes > 0) std::memcpy(s.pinned.data() + part.offset, part.host, std::size_t(part.bytes));
    // The copy overwrites the device buffer once the layer that read it (two back) is done.
    if (s.in_flight) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(copy_.get(), s.used, 0));
    cuda::copy_to_device(s.device.data(), s.pinned.data(), std::size_t(p.bytes), copy_.get());
    TESSEL_CUDA_CHECK(cudaEventRecord(s.copied, copy_.get()));
    TESSEL_CUDA_CHECK(cudaStreamWaitEvent(compute, s.copied, 0));
    return layer_arrays(wt, p, s.device.data());
}

void StreamedLayers::done_with(cudaStream_t compute) {
    Slot& s = slot_[next_];
    TESSEL_CUDA_CHECK(cudaEventRecord(s.used, compute));
    s.in_flight = true;
    next_ = 1 - next_;
}

}  // namespace tessel::spdnn
