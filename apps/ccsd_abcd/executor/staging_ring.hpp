// Pinned staging between host tiles and a contiguous range of device memory, in windows of a few
// MiB that cycle through a small ring of pinned slots: host tiles are packed into a slot (by
// all threads) while the slots before it are on their way, and the other way round for
// downloads. Bounded pinned memory whatever the size of the data (pinning gigabytes costs more
// than copying them). Only in builds with the CUDA backend; used by cuda_executor.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "core/cuda/runtime/pinned_buffer.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/types.hpp"

namespace tessel::abcd {

/// One tile's place in a packed range: `values` values at `offset` of the range.
struct PackedTile {
    size_type offset = 0, values = 0;
};

/// The host waits for `event` only when it has not been reached yet (a counted wait).
inline void wait_if_pending(const cuda::Event& event) {
    if (cudaEventQuery(event.get()) == cudaSuccess) return;
    cuda::synchronize_event(event.get());
}

template <typename T>
class StagingRing {
public:
    /// The slots are pinned when first used: a run whose tiles all go straight from registered
    /// host buffers pins nothing here (pinning costs milliseconds per slot).
    StagingRing(int slots, size_type slot_values) : slot_values_(slot_values) {
        slots_.resize(static_cast<std::size_t>(slots));
    }

    /// device[0 .. values) := the tiles (`tiles[t]` from host `source(t)`), packed as laid out,
    /// on `stream`; returns when the last window is enqueued (gaps between tiles are not written).
    void upload(T* device, size_type values, const std::vector<PackedTile>& tiles,
                const std::function<const T*(std::size_t)>& source, cudaStream_t stream) {
        std::size_t first = 0;  // the first tile that may meet the window
        for (size_type w = 0; w < values; w += slot_values_) {
            const size_type len = std::min(slot_values_, values - w);
            Slot& s = next_slot();
            wait_if_pending(s.done);  // its last copy has left the slot
            while (first < tiles.size() && tiles[first].offset + tiles[first].values <= w) ++first;
            std::vector<Piece> pieces;
            for (std::size_t t = first; t < tiles.size() && tiles[t].offset < w + len; ++t)
                add_piece(pieces, tiles[t], w, len, [&](size_type at) { return s.memory.data() + at; },
                          source(t), true);
            copy_pieces(pieces);
            cuda::copy_to_device(device + w, s.memory.data(), std::size_t(len) * sizeof(T), stream);
            TESSEL_CUDA_CHECK(cudaEventRecord(s.done.get(), stream));
        }
    }

    /// The tiles := device[0 .. values) on `stream` (after the work enqueued there), window by
    /// window; `target(t, values)` gives tile t's host memory (called once per tile, before its
    /// first values arrive) and `complete(t)` is called once its last values are in. Windows are
    /// unpacked when their slot is needed again, or by finish(); the callbacks must live until.
    void download(const T* device, size_type values, std::vector<PackedTile> tiles,
                  std::function<T*(std::size_t, size_type)> target, std::function<void(std::size_t)> complete,
                  cudaStream_t stream) {
        auto job = std::make_shared<Job>();
        job->memory.assign(tiles.size(), nullptr);
        job->tiles = std::move(tiles);
        job->target = std::move(target);
        job->complete = std::move(complete);
        for (size_type w = 0; w < values; w += slot_values_) {
            const size_type len = std::min(slot_values_, values - w);
            if (pending_.size() == slots_.size()) unpack_oldest();
            Slot& s = next_slot();
            cuda::copy_to_host(s.memory.data(), device + w, std::size_t(len) * sizeof(T), stream);
            TESSEL_CUDA_CHECK(cudaEventRecord(s.done.get(), stream));
            pending_.push_back({&s, w, len, job});
        }
    }

    /// Unpacks every window still on its way (the host waits for the last of them).
    void finish() {
        while (!pending_.empty()) unpack_oldest();
    }

    /// Host seconds spent copying between tiles and the pinned slots (waits excluded).
    double copy_seconds() const { return copy_seconds_; }

private:
    struct Slot {
        cuda::PinnedBuffer<T> memory;
        cuda::Event done;  ///< the last copy from or into the slot
    };
    struct Piece {
        T* to;
        const T* from;
        size_type values;
    };
    struct Job {
        std::vector<PackedTile> tiles;
        std::function<T*(std::size_t, size_type)> target;
        std::function<void(std::size_t)> complete;
        std::vector<T*> memory;
    };
    struct Window {
        Slot* slot;
        size_type begin, values;
        std::shared_ptr<Job> job;
    };

    Slot& next_slot() {
        Slot& s = slots_[next_];
        next_ = (next_ + 1) % slots_.size();
        s.memory.reserve(slot_values_);  // once: never shrinks
        return s;
    }

    // The part of `tile` inside the window [w, w + len), as a copy between the slot and the
    // tile's host memory (`up`: host to slot).
    template <typename SlotAt>
    static void add_piece(std::vector<Piece>& pieces, const PackedTile& tile, size_type w, size_type len,
                          SlotAt slot_at, const T* host, bool up) {
        const size_type lo = std::max(tile.offset, w), hi = std::min(tile.offset + tile.values, w + len);
        if (lo >= hi) return;
        T* in_slot = slot_at(lo - w);
        T* in_tile = const_cast<T*>(host) + (lo - tile.offset);
        pieces.push_back(up ? Piece{in_slot, in_tile, hi - lo} : Piece{in_tile, in_slot, hi - lo});
    }

    // Every piece copied, split in parts of at most 256 KiB over the threads.
    void copy_pieces(const std::vector<Piece>& pieces) {
        const auto start = std::chrono::steady_clock::now();
        constexpr size_type part = (size_type(256) << 10) / size_type(sizeof(T));
        std::vector<Piece> parts;
        for (const Piece& p : pieces)
            for (size_type at = 0; at < p.values; at += part)
                parts.push_back({p.to + at, p.from + at, std::min(part, p.values - at)});
#pragma omp parallel for schedule(dynamic, 1) if (parts.size() > 1)
        for (std::size_t x = 0; x < parts.size(); ++x)
            std::memcpy(parts[x].to, parts[x].from, std::size_t(parts[x].values) * sizeof(T));
        copy_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

    void unpack_oldest() {
        const Window win = pending_.front();
        pending_.pop_front();
        wait_if_pending(win.slot->done);
        Job& job = *win.job;
        const auto& tiles = job.tiles;
        std::vector<Piece> pieces;
        std::vector<std::size_t> completed;
        auto first = std::upper_bound(tiles.begin(), tiles.end(), win.begin,
                                      [](size_type w, const PackedTile& t) { return w < t.offset + t.values; });
        for (auto it = first; it != tiles.end() && it->offset < win.begin + win.values; ++it) {
            const auto t = static_cast<std::size_t>(it - tiles.begin());
            if (!job.memory[t]) job.memory[t] = job.target(t, it->values);
            add_piece(pieces, *it, win.begin, win.values, [&](size_type at) { return win.slot->memory.data() + at; },
                      job.memory[t], false);
            if (it->offset + it->values <= win.begin + win.values) completed.push_back(t);
        }
        copy_pieces(pieces);
        for (std::size_t t : completed) job.complete(t);
    }

    size_type slot_values_;
    std::vector<Slot> slots_;
    std::size_t next_ = 0;
    std::deque<Window> pending_;
    double copy_seconds_ = 0;
};

}  // namespace tessel::abcd
