// Tile storage and compaction of live images.
#include "apps/spdnn/engines/tile_activations.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/error.hpp"

namespace tessel::spdnn {

TileActivations::TileActivations(size_type neurons, int tile_width)
    : neurons_(neurons), width_(tile_width) {
    TESSEL_ENSURE_DIMS(neurons > 0 && tile_width > 0 && tile_width <= 64,
                       "tile activations: need N > 0 and 1 <= R <= 64");
}

void TileActivations::resize(size_type count) {
    ids_.resize(count);
    const auto need = static_cast<std::size_t>(tiles() * tile_size());
    if (data_.size() < need) data_.resize(need);
}

void TileActivations::clear_padding() {
    const size_type used = count() % width_;
    if (used == 0) return;
    Value* t = tile(tiles() - 1);
    for (size_type n = 0; n < neurons_; ++n)
        std::fill(t + n * width_ + used, t + (n + 1) * width_, Value(0));
}

void TileActivations::get_row(size_type i, Value* row) const {
    const Value* t = tile(i / width_) + i % width_;
    for (size_type n = 0; n < neurons_; ++n) row[n] = t[n * width_];
}

void TileActivations::set_row(size_type i, const Value* row) {
    Value* t = tile(i / width_) + i % width_;
    for (size_type n = 0; n < neurons_; ++n) t[n * width_] = row[n];
}

size_type count_live(const std::vector<std::uint64_t>& live_masks, size_type count, int tile_width) {
    size_type live = 0;
    const size_type tiles = (count + tile_width - 1) / tile_width;
    for (size_type t = 0; t < tiles; ++t) {
        const size_type lanes = std::min<size_type>(tile_width, count - t * tile_width);
        const std::uint64_t valid = lanes >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << lanes) - 1;
        live += std::popcount(live_masks[t] & valid);
    }
    return live;
}

size_type compact(const TileActivations& src, const std::vector<std::uint64_t>& live_masks,
                  TileActivations& dst) {
    TESSEL_ENSURE_DIMS(src.neurons() == dst.neurons() && src.tile_width() == dst.tile_width(),
                       "compact: source and destination differ in N or R");
    const int r_width = src.tile_width();
    const size_type n = src.neurons(), count = src.count();
    // Source position of every surviving image, in order.
    std::vector<size_type> from;
    from.reserve(count);
    for (size_type i = 0; i < count; ++i)
        if ((live_masks[i / r_width] >> (i % r_width)) & 1) from.push_back(i);
    const size_type live = static_cast<size_type>(from.size());
    dst.resize(live);
    for (size_type i = 0; i < live; ++i) dst.ids()[i] = src.ids()[from[i]];
    const size_type tiles = dst.tiles(), tile_size = src.tile_size();
#pragma omp parallel for schedule(static) if (live * n > (size_type(1) << 20))
    for (size_type t = 0; t < tiles; ++t) {
        const size_type lanes = std::min<size_type>(r_width, live - t * r_width);
        Value* out = dst.tile(t);
        // A whole source tile that moves unchanged is one copy.
        const size_type s0 = from[t * r_width];
        if (lanes == r_width && s0 % r_width == 0 && from[t * r_width + r_width - 1] == s0 + r_width - 1) {
            std::memcpy(out, src.tile(s0 / r_width), sizeof(Value) * tile_size);
            continue;
        }
        size_type offset[64];
        for (size_type r = 0; r < lanes; ++r) {
            const size_type s = from[t * r_width + r];
            offset[r] = (s / r_width) * tile_size + s % r_width;
        }
        const Value* base = src.tile(0);
        for (size_type k = 0; k < n; ++k) {
            Value* o = out + k * r_width;
            const Value* b = base + k * r_width;
            for (size_type r = 0; r < lanes; ++r) o[r] = b[offset[r]];
            for (size_type r = lanes; r < r_width; ++r) o[r] = Value(0);
        }
    }
    return live;
}

}  // namespace tessel::spdnn
