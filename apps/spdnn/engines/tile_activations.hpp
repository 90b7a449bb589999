// Dense activations of the live images, stored as register tiles of images, and their
// compaction (dropping images whose rows became all zero).
#pragma once

#include <cstdint>
#include <vector>

#include "apps/spdnn/network/network.hpp"
#include "core/aligned_allocator.hpp"

namespace tessel::spdnn {

/// The live images' activations, R images per tile: tile t is an N x R row-major block, so
/// neuron n of image t·R + r is at tile(t)[n·R + r] and one neuron's R images are one
/// register tile. Lanes past count() in the last tile are kept zero. ids()[i] is the 0-based
/// image id of live image i (ascending within a rank).
class TileActivations {
public:
    TileActivations() = default;
    TileActivations(size_type neurons, int tile_width);

    size_type neurons() const { return neurons_; }
    int tile_width() const { return width_; }
    size_type count() const { return static_cast<size_type>(ids_.size()); }
    size_type tiles() const { return (count() + width_ - 1) / width_; }
    size_type tile_size() const { return neurons_ * width_; }

    /// Sets the number of images (ids resized, values left as they are; storage grows and
    /// is never given back, so that buffers swapped between layers are reused).
    void resize(size_type count);
    Value* tile(size_type t) { return data_.data() + t * tile_size(); }
    const Value* tile(size_type t) const { return data_.data() + t * tile_size(); }
    std::vector<std::int64_t>& ids() { return ids_; }
    const std::vector<std::int64_t>& ids() const { return ids_; }

    /// Sets the lanes past count() in the last tile to zero.
    void clear_padding();
    /// Copies the N activations of live image i to row[0 .. N).
    void get_row(size_type i, Value* row) const;
    /// Sets the N activations of live image i from row[0 .. N).
    void set_row(size_type i, const Value* row);

private:
    size_type neurons_ = 0;
    int width_ = 16;
    std::vector<std::int64_t> ids_;
    std::vector<Value, AlignedAllocator<Value>> data_;
};

/// dst := the images of src whose bit is set in live_masks (bit r of word t: image t·R + r),
/// in the same order, ids with them; padding lanes zero. Parallel over destination tiles.
/// Returns dst.count(). src and dst must be distinct with the same N and R.
size_type compact(const TileActivations& src, const std::vector<std::uint64_t>& live_masks,
                  TileActivations& dst);

/// Number of set bits over the first `count` lanes of the masks.
size_type count_live(const std::vector<std::uint64_t>& live_masks, size_type count, int tile_width);

}  // namespace tessel::spdnn
