// The cuda executor (paper sections 3.2.2-3.2.3), with the data living on the device: per
// block, B's tiles are made there by a kernel (the host's hash, b_tile_kernels.cu), part by
// part just before the GEMMs that first read them (tiles from a file go up through pinned
// staging at the block's start instead) and each C tile's first GEMM writes it there
// (beta = 0, cuda_schedule.hpp; C is zeroed only in a block with a C tile no GEMM writes).
// A: when the device's A tiles fit the plan's half of the budget (ProcessPlan::a_resident)
// each goes up once, through a small ring of pinned windows on a copy stream, in the part of
// the chunk that first uses it, and stays for every later block; else each is packed once into
// a pinned copy of the device's A tiles and every chunk's tiles are copied from there into one
// of two device buffers while the previous chunk's GEMMs run (no host packing per block); the
// GEMMs are grouped into cuBLAS calls by shape
// (batched where a round of a wave holds several of one shape, cuda_schedule.hpp) on several
// streams; each C tile stays on the device until the wave of GEMMs that finishes it has run
// in the block's last chunk (cuda_schedule.hpp) and then comes back, once. The host
// buffers of A and C tiles are registered with the device (cudaHostRegister, once per buffer of
// the tile cache, tile_memory.hpp) and copied straight from and to: the pinned staging above
// (a ring of windows for A kept on the device, a pinned copy of A's layout otherwise, windows
// unpacked into host tiles for C) only carries tiles whose buffers could not be registered (or
// all of them with ExecutorOptions::register_host_tiles off). Everything the
// schedule needs on the device (pointer arrays of the batched calls, B's tile list) goes up
// once, before the blocks: in the steady phase (one step per block) only A comes up and C
// comes down. One host thread drives all the devices of the process as a round of
// non-blocking steps and lets MPI progress in between. A device's streams, cuBLAS handles,
// events and buffers are kept for the next run (release_kept_devices frees them).
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/ccsd_abcd/executor/b_tile_kernels.hpp"
#include "apps/ccsd_abcd/executor/block_timeline.hpp"
#include "apps/ccsd_abcd/executor/cuda_schedule.hpp"
#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/executor/staging_ring.hpp"
#include "apps/ccsd_abcd/executor/tile_exchange.hpp"
#include "apps/ccsd_abcd/executor/tile_memory.hpp"
#include "apps/ccsd_abcd/problem/element_hash.hpp"
#include "core/backend.hpp"
#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/device_traffic.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {

constexpr int streams_per_device = 4;
constexpr int staging_slots = 4;                              // per direction
constexpr std::size_t staging_bytes = std::size_t(8) << 20;   // per slot

// Host tile buffers registered with every device, counted as pinned copies (core's runtime).
constexpr tile_memory::Pinning host_pinning{cuda::register_host_memory, cuda::unregister_host_memory};

// C tiles copied straight into their host buffers: handed over once `done` is reached.
struct CBatch {
    cuda::Event done;
    std::vector<std::size_t> tiles;  // indices into the block's C tiles
};

// Everything one device needs, released in the destructor.
template <typename T>
struct Device {
    int id = 0;                       // CUDA device
    std::vector<std::size_t> blocks;  // indices into the process's blocks
    std::size_t block = 0;            // cursor into `blocks`
    int chunk = -1;                   // next chunk to compute; -1 at a block's start
    DeviceSchedule schedule;
    // Streams and events are made in setup, once the device is current.
    std::vector<cuda::Stream> compute;      // streams_per_device of them
    std::vector<cuda::GemmHandle> handles;  // one per compute stream (core's cuBLAS GEMM)
    std::optional<cuda::Stream> up, down;   // host to device, device to host
    std::optional<cuda::Stream> maker;      // B's tiles made on the device, part by part
    cuda::DeviceBuffer<T> block_buf;        // B tiles then C tiles of the current block
    std::array<cuda::DeviceBuffer<T>, 2> chunk_buf;  // A not resident
    cuda::DeviceBuffer<T> a_buf;                     // A resident: the device's A layout
    cuda::PinnedBuffer<T> a_host;                    // A not resident: the device's A layout, packed once
    cuda::DeviceBuffer<T*> pointers;        // A, B, C pointers of every GEMM (batched calls)
    cuda::DeviceBuffer<TileJob> b_jobs;     // every block's B tiles (made on the device)
    std::optional<StagingRing<T>> up_ring, down_ring;
    std::vector<cuda::Event> copied;                 // chunk buffer x is loaded (x = 0, 1)
    std::vector<std::vector<cuda::Event>> computed;  // [x][s]: GEMMs of stream s on buffer x done
    std::vector<cuda::Event> block_end;              // [s]: stream s is done with the block
    std::array<std::vector<std::vector<cuda::Event>>, 2> wave_done;  // [q % 2][w][s]: stream s ran part q's wave w
    std::optional<cuda::Event> ready, c_down;        // block buffer free (host B in, C zeroed); C of the block read
    std::optional<cuda::Event> part_up;              // a part of A is in
    std::optional<cuda::Event> part_b;               // a part's B tiles are made
    std::optional<BlockTimeline> timeline;           // the run's first block, timed
    std::vector<TileBuffer<T>> c_tiles;              // C of the block on its way to the host
    std::size_t c_sent = 0;                          // C tiles of the block sent down so far
    std::deque<CBatch> c_batches;                    // straight C copies not handed over yet

    /// Ready for a run: the cursors and the run's tiles cleared, the resources kept.
    void start_run() {
        blocks.clear();
        block = 0;
        chunk = -1;
        c_tiles.clear();
        c_sent = 0;
        c_batches.clear();
    }
    /// Device memory held by the buffers.
    size_type bytes() const {
        return static_cast<size_type>(sizeof(T)) * (block_buf.size() + chunk_buf[0].size() + chunk_buf[1].size() +
                                                   a_buf.size());
    }

    ~Device() {
        // Reached with work pending on an error path (run() ends with a counted wait), or when
        // a kept device is released; the device must be done before its streams, events and
        // buffers go.
        cudaSetDevice(id);
        cudaDeviceSynchronize();
        handles.clear();  // before their streams
    }
};

// Devices kept from one run to the next, as CCSD iterates (or --repeat): a run makes no
// streams, cuBLAS handles or events again and reuses the device buffers that fit. Never
// destroyed at exit (the CUDA runtime may be gone by then): release_kept_devices frees them.
template <typename T>
struct KeptDevices {
    std::mutex mutex;
    std::vector<std::unique_ptr<Device<T>>> devices;
};

template <typename T>
KeptDevices<T>& kept_devices() {
    static auto* kept = new KeptDevices<T>();
    return *kept;
}

// A kept device with CUDA id `id`, ready for a run, else a new one.
template <typename T>
std::unique_ptr<Device<T>> take_device(int id) {
    auto& kept = kept_devices<T>();
    std::lock_guard<std::mutex> lock(kept.mutex);
    const auto at = std::find_if(kept.devices.begin(), kept.devices.end(), [id](const auto& d) { return d->id == id; });
    if (at == kept.devices.end()) return std::make_unique<Device<T>>();
    auto out = std::move(*at);
    kept.devices.erase(at);
    out->start_run();
    return out;
}

template <typename T>
void keep_device(std::unique_ptr<Device<T>> d) {
    auto& kept = kept_devices<T>();
    std::lock_guard<std::mutex> lock(kept.mutex);
    kept.devices.push_back(std::move(d));
}

template <typename T>
size_type kept_bytes(int id) {
    auto& kept = kept_devices<T>();
    std::lock_guard<std::mutex> lock(kept.mutex);
    size_type bytes = 0;
    for (const auto& d : kept.devices)
        if (d->id == id) bytes += d->bytes();
    return bytes;
}

template <typename T>
void release_kept() {
    auto& kept = kept_devices<T>();
    std::lock_guard<std::mutex> lock(kept.mutex);
    kept.devices.clear();
}

// `buffer` holds at least `values` (at least one) and wastes at most a quarter: kept when it
// does, else freed first and made anew.
template <typename B>
void fit(B& buffer, size_type values) {
    values = std::max<size_type>(values, 1);
    if (buffer.size() >= values && buffer.size() - values <= values / 4) return;
    buffer = B();
    buffer = B(values);
}

template <typename T>
class CudaRun {
public:
    CudaRun(const Problem& p, const Plan& plan, TileStore<T>& a, TileExchange<T>& ex, ExecutionResult& r,
            const ExecutorOptions& o, bool register_tiles)
        : p_(p), plan_(plan), me_(plan.processes[o.rank]), a_(a), ex_(ex), r_(r), part_bytes_(o.cuda_part_bytes),
          wave_flops_(o.cuda_wave_flops), register_(register_tiles),
          generated_(dynamic_cast<const GeneratedTiles*>(p.values.get())),
          b_base_(generated_ ? element_hash::operand_base(generated_->seed(), std::uint64_t(Operand::b)) : 0) {
        const int count = cuda::device_count();
        if (count == 0) TESSEL_THROW(CudaError, "the cuda backend found no CUDA device");
        int devices = 0;
        for (const auto& b : me_.blocks) devices = std::max(devices, b.device + 1);
        devices_.resize(static_cast<std::size_t>(devices));
        for (int d = 0; d < devices; ++d) devices_[d] = take_device<T>((o.first_device + d) % count);
        for (std::size_t b = 0; b < me_.blocks.size(); ++b) devices_[me_.blocks[b].device]->blocks.push_back(b);
        for (int d = 0; d < devices; ++d) setup(*devices_[d], (o.first_device + d) % count);
    }

    // The blocks (the steady phase, one step each), then a wait for every device.
    void run() {
        {
            device_traffic::PhaseScope steady(device_traffic::Phase::steady);
            bool busy = true;
            while (busy) {
                busy = false;
                for (auto& d : devices_)
                    if (step(*d)) busy = true;
                ex_.progress();
            }
        }
        device_traffic::PhaseScope finish(device_traffic::Phase::finish);
        for (std::size_t x = 0; x < devices_.size(); ++x) {
            Device<T>& d = *devices_[x];
            TESSEL_CUDA_CHECK(cudaSetDevice(d.id));
            cuda::synchronize_device();
            if (x == 0) r_.device_timeline = d.timeline->read();
            r_.host_copy_seconds += d.up_ring->copy_seconds() + d.down_ring->copy_seconds() - ring_seconds_[x];
        }
        for (auto& d : devices_) keep_device(std::move(d));  // done: the next run reuses it
    }

    bool b_on_device() const { return generated_ != nullptr; }

private:
    void setup(Device<T>& d, int id) {
        d.id = id;
        TESSEL_CUDA_CHECK(cudaSetDevice(id));
        auto& parts = r_.device_setup_parts;
        Timer t;
        d.schedule = schedule_device(p_, plan_, me_, d.blocks, streams_per_device, part_bytes_, wave_flops_);
        parts.schedule += t.seconds();
        t.restart();
        const DeviceSchedule& s = d.schedule;
        if (d.compute.empty()) make_streams(d);  // else kept from an earlier run
        parts.streams += t.seconds();
        t.restart();
        // Buffers this run does not use go (the plan counted kept memory as free).
        fit(d.block_buf, s.block_values);
        for (int x = 0; x < 2; ++x) {
            if (s.a_resident)
                d.chunk_buf[x] = {};
            else
                fit(d.chunk_buf[x], s.chunk_values[x]);
        }
        if (s.a_resident)
            fit(d.a_buf, s.a_values);
        else
            d.a_buf = {};
        // Else the pinned copy of A's layout is made when a tile first needs it (copy_part);
        // the staging slots are pinned when first used (only tiles that are not registered).
        const auto slot_values = size_type(staging_bytes / sizeof(T));
        if (!d.up_ring) {
            d.up_ring.emplace(staging_slots, slot_values);
            d.down_ring.emplace(staging_slots, slot_values);
        }
        ring_seconds_.push_back(d.up_ring->copy_seconds() + d.down_ring->copy_seconds());
        for (auto& set : d.wave_done)  // kept; grown to this schedule's waves
            while (set.size() < s.max_waves) set.emplace_back(streams_per_device);
        parts.buffers += t.seconds();
        t.restart();
        upload_schedule(d);
        parts.upload += t.seconds();
        d.timeline->arm();
        r_.calls += s.calls;
    }

    // Streams, their cuBLAS handles and the events of a new device (made current).
    static void make_streams(Device<T>& d) {
        for (int x = 0; x < streams_per_device; ++x) {
            d.compute.emplace_back();
            d.handles.emplace_back(static_cast<void*>(d.compute.back().get()));
            d.block_end.emplace_back();
        }
        d.up.emplace();
        d.down.emplace();
        d.maker.emplace();
        for (int x = 0; x < 2; ++x) {
            d.copied.emplace_back();
            d.computed.emplace_back(streams_per_device);
        }
        d.ready.emplace();
        d.c_down.emplace();
        d.part_up.emplace();
        d.part_b.emplace();
        d.timeline.emplace(streams_per_device);
    }

    // The pointer arrays of every GEMM (A in its chunk's buffer, B and C in the block buffer)
    // and, when B is made on the device, its tile list: one copy each, before the blocks.
    void upload_schedule(Device<T>& d) {
        const DeviceSchedule& s = d.schedule;
        const std::size_t g = s.operands.size();
        std::vector<T*> host(3 * g);
        for (const auto& b : s.blocks)
            for (const auto& ch : b.chunks)
                for (const auto& part : ch.parts)
                    for (const auto& call : part.calls)
                        for (size_type x = call.first; x < call.first + call.count; ++x) {
                            const auto at = static_cast<std::size_t>(x);
                            const GemmOperands& o = s.operands[at];
                            host[at] = a_base(d, ch) + o.a;
                            host[g + at] = d.block_buf.data() + o.b;
                            host[2 * g + at] = d.block_buf.data() + o.c;
                        }
        if (g > 0) d.pointers = cuda::DeviceBuffer<T*>(host.data(), static_cast<size_type>(host.size()), d.up->get());
        if (b_on_device() && !s.b_tiles.empty()) {
            std::vector<TileJob> jobs;
            for (const auto& t : s.b_tiles)
                jobs.push_back({t.row0, t.col0, t.offset, static_cast<std::int32_t>(t.rows), static_cast<std::int32_t>(t.cols)});
            d.b_jobs = cuda::DeviceBuffer<TileJob>(jobs.data(), static_cast<size_type>(jobs.size()), d.up->get());
        }
        // The host vectors go now: the copies must be done (pageable memory, a counted wait).
        d.up->synchronize();
    }

    // Where the GEMMs of chunk `cs` read A.
    static T* a_base(Device<T>& d, const ChunkSchedule& cs) {
        return d.schedule.a_resident ? d.a_buf.data() : d.chunk_buf[cs.buffer].data();
    }

    // One non-blocking step of a device: start a block, or run a chunk, or bring the rest of a
    // finished block's C back. False when the device has nothing left.
    bool step(Device<T>& d) {
        if (d.block >= d.blocks.size()) return false;
        TESSEL_CUDA_CHECK(cudaSetDevice(d.id));
        const BlockPlan& b = me_.blocks[d.blocks[d.block]];
        const BlockSchedule& bs = d.schedule.blocks[d.block];
        if (d.chunk < 0) {
            start_block(d, b, bs);
            d.chunk = 0;
            return true;
        }
        if (d.chunk < static_cast<int>(b.chunks.size())) {
            run_chunk(d, b, bs, d.chunk);
            ++d.chunk;
            return true;
        }
        finish_block(d, b, bs);
        ++d.block;
        d.chunk = -1;
        device_traffic::count_steady_step();
        return d.block < d.blocks.size();
    }

    // The block buffer taken over once every stream is done with the previous block and its C
    // has left: B from the host through the staging ring (B made on the device comes part by
    // part, make_part_b) and, where the schedule asks, C zeroed.
    void start_block(Device<T>& d, const BlockPlan& b, const BlockSchedule& bs) {
        cudaStream_t writer = b_on_device() ? d.compute[0].get() : d.up->get();
        d.timeline->mark(BlockTimeline::start, writer);
        for (auto& e : d.block_end) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(writer, e.get(), 0));
        TESSEL_CUDA_CHECK(cudaStreamWaitEvent(writer, d.c_down->get(), 0));
        if (!b_on_device()) upload_host_b(d, b, bs);
        // Else each C tile's first GEMM overwrites it (beta = 0): no pass over C's bytes first.
        if (bs.zero_c && bs.end > bs.c_begin)
            TESSEL_CUDA_CHECK(cudaMemsetAsync(d.block_buf.data() + bs.c_begin, 0,
                                              std::size_t(bs.end - bs.c_begin) * sizeof(T), writer));
        if (!b_on_device()) d.timeline->mark(BlockTimeline::b_made, writer);  // before `ready`: its waiters follow it
        TESSEL_CUDA_CHECK(cudaEventRecord(d.ready->get(), writer));
        for (auto& s : d.compute) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(s.get(), d.ready->get(), 0));
        TESSEL_CUDA_CHECK(cudaStreamWaitEvent(d.down->get(), d.ready->get(), 0));
        TESSEL_CUDA_CHECK(cudaStreamWaitEvent(d.maker->get(), d.ready->get(), 0));
        d.c_tiles.assign(b.c_tiles.size(), TileBuffer<T>{});
        d.c_sent = 0;
    }

    // B tiles that only the host can make (stored in a file): made by all threads, then up.
    void upload_host_b(Device<T>& d, const BlockPlan& b, const BlockSchedule& bs) {
        const TileShape& shape = p_.b_shape;
        TileStore<T> tiles(b.b_tiles.size());
        std::vector<PackedTile> packed(b.b_tiles.size());
        Timer g;
#pragma omp parallel for schedule(dynamic, 1)
        for (std::size_t s = 0; s < b.b_tiles.size(); ++s) {
            const size_type pos = b.b_tiles[s];
            const size_type i = shape.row_of(pos), j = shape.col_idx()[pos];
            tiles[s].resize(static_cast<std::size_t>(p_.k_tiling.size(i) * p_.n_tiling.size(j)));
            p_.values->fill(Operand::b, i, j, tiles[s].data());
            packed[s] = {bs.b_offset[s], static_cast<size_type>(tiles[s].size())};
        }
        r_.b_generation_seconds += g.seconds() * omp_get_max_threads();
        d.up_ring->upload(d.block_buf.data(), bs.c_begin, packed, [&](std::size_t s) { return tiles[s].data(); },
                          d.up->get());
        // The host tiles go when this returns: wait for the last window to have left them.
        d.up->synchronize();
        r_.h2d_bytes += b.b_bytes;
    }

    // Chunk n, part by part: the part's A tiles (received by now) go up, then its GEMMs run
    // while the host prepares the next part. A resident: only the tiles the device has not had
    // yet, through the staging ring into the device's A layout. Else: the fresh tiles packed
    // into the pinned A layout (once per run), then the part's tiles copied from there into
    // device buffer `buffer` (once the GEMMs that last used it are done). In the block's last
    // chunk, the C tiles that each wave of a part made final go down while the next waves
    // compute (enqueued one part late, so that the host, which waits for the staging ring's
    // windows, does so while the device still has the current part's GEMMs to run).
    void run_chunk(Device<T>& d, const BlockPlan& b, const BlockSchedule& bs, int n) {
        const ChunkPlan& ch = b.chunks[n];
        const ChunkSchedule& cs = bs.chunks[n];
        const bool last = n + 1 == static_cast<int>(b.chunks.size());
        ex_.wait_for(ch.a_tiles);
        if (!d.schedule.a_resident)
            for (auto& e : d.computed[cs.buffer]) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(d.up->get(), e.get(), 0));
        for (std::size_t q = 0; q < cs.parts.size(); ++q) {
            const ChunkPart& part = cs.parts[q];
            if (d.schedule.a_resident ? upload_fresh(d, ch, cs, part) : copy_part(d, ch, cs, part)) {
                // The marks first: whatever waits for the part follows them. Waits are taken
                // when enqueued: the event is free again right after.
                d.timeline->mark(BlockTimeline::first_a_part_up, d.up->get());
                d.timeline->mark_again(BlockTimeline::last_a_part_up, d.up->get());
                TESSEL_CUDA_CHECK(cudaEventRecord(d.part_up->get(), d.up->get()));
                for (auto& s : d.compute) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(s.get(), d.part_up->get(), 0));
            }
            if (b_on_device() && part.b_count > 0) make_part_b(d, part);
            issue_calls(d, cs, part, last && !part.sends.empty() ? &d.wave_done[q % 2] : nullptr);
            if (!last) continue;
            if (q > 0) send_part(d, b, bs, cs.parts[q - 1], d.wave_done[(q - 1) % 2]);
            if (q + 1 == cs.parts.size()) send_part(d, b, bs, part, d.wave_done[q % 2]);
        }
        if (!d.schedule.a_resident)
            for (int s = 0; s < streams_per_device; ++s)
                TESSEL_CUDA_CHECK(cudaEventRecord(d.computed[cs.buffer][s].get(), d.compute[s].get()));
        ++r_.chunks;
    }

    // The B tiles the part reads first, made on the maker stream (enqueued once the previous
    // part's GEMMs are, so that the device starts those first); the part's GEMMs wait for them.
    void make_part_b(Device<T>& d, const ChunkPart& part) {
        cudaStream_t maker = d.maker->get();
        generate_tiles<T>(d.b_jobs.data() + part.b_first, part.b_count, part.b_largest, b_base_, d.block_buf.data(),
                          maker);
        d.timeline->mark(BlockTimeline::b_made, maker);  // the first part's B
        TESSEL_CUDA_CHECK(cudaEventRecord(d.part_b->get(), maker));
        for (auto& s : d.compute) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(s.get(), d.part_b->get(), 0));
    }

    // True when the host buffer at `data` is registered with the device (registered now if it
    // can be, timed): copies go straight from or to it.
    bool direct(const T* data) {
        if (!register_ || !data) return false;
        std::size_t bytes = 0;
        Timer t;
        const auto pinned = tile_memory::pin(data, host_pinning, bytes);
        if (pinned == tile_memory::PinResult::now) {
            r_.registered_bytes += static_cast<size_type>(bytes);
            r_.register_seconds += t.seconds();
        }
        return pinned != tile_memory::PinResult::refused;
    }

    // A resident: the part's fresh tiles up into the device's A layout (a contiguous range),
    // straight from their host buffers, the others through the staging ring. False when the
    // part has none (the device has them all).
    bool upload_fresh(Device<T>& d, const ChunkPlan& ch, const ChunkSchedule& cs, const ChunkPart& part) {
        if (part.fresh.empty()) return false;
        std::vector<std::size_t> straight, staged;  // tiles of the chunk; staged: the current run
        std::vector<PackedTile> packed;
        // A run of consecutive staged tiles through the windows, up to `hi` (padding included).
        auto flush = [&](size_type hi) {
            if (packed.empty()) return;
            const size_type lo = packed.front().offset;
            for (auto& pt : packed) pt.offset -= lo;
            d.up_ring->upload(d.a_buf.data() + lo, hi - lo, packed,
                              [&](std::size_t x) { return a_[ch.a_tiles[staged[x]]].data(); }, d.up->get());
            packed.clear();
            staged.clear();
        };
        for (std::size_t x : part.fresh) {
            const std::size_t t = cs.order[x];
            const TileBuffer<T>& tile = a_[ch.a_tiles[t]];
            const auto bytes = static_cast<size_type>(tile.size() * sizeof(T));
            r_.h2d_bytes += bytes;
            if (direct(tile.data())) {
                flush(cs.a_layout[t]);
                straight.push_back(t);
                continue;
            }
            staged.push_back(t);
            packed.push_back({cs.a_layout[t], static_cast<size_type>(tile.size())});
            r_.a_packed_bytes += bytes;
        }
        flush(part.fresh_end);
        // After the windows, which write the gaps between their tiles (same stream: in order).
        for (std::size_t t : straight) {
            const TileBuffer<T>& tile = a_[ch.a_tiles[t]];
            cuda::copy_to_device(d.a_buf.data() + cs.a_layout[t], tile.data(), tile.size() * sizeof(T), d.up->get());
        }
        return true;
    }

    // A not resident: the part's tiles into device buffer `buffer`, straight from their host
    // buffers when registered; the others packed once, when fresh, into the pinned A layout
    // (by all threads; never written again, so no wait) and copied from there.
    bool copy_part(Device<T>& d, const ChunkPlan& ch, const ChunkSchedule& cs, const ChunkPart& part) {
        std::vector<char> straight(part.last - part.first);
        bool any_straight = false;
        for (std::size_t x = part.first; x < part.last; ++x) {
            const TileBuffer<T>& tile = a_[ch.a_tiles[cs.order[x]]];
            straight[x - part.first] = direct(tile.data());
            any_straight = any_straight || straight[x - part.first];
            r_.h2d_bytes += static_cast<size_type>(tile.size() * sizeof(T));
        }
        pack_fresh(d, ch, cs, part, straight);
        T* chunk = d.chunk_buf[cs.buffer].data();
        if (!any_straight) {  // runs of tiles, as laid out in both
            for (const ACopy& c : part.copies)
                cuda::copy_to_device(chunk + c.to, d.a_host.data() + c.from, std::size_t(c.values) * sizeof(T),
                                     d.up->get());
            return !part.copies.empty();
        }
        for (std::size_t x = part.first; x < part.last; ++x) {
            const std::size_t t = cs.order[x];
            const TileBuffer<T>& tile = a_[ch.a_tiles[t]];
            const T* from = straight[x - part.first] ? tile.data() : d.a_host.data() + cs.a_layout[t];
            cuda::copy_to_device(chunk + cs.a_offset[t], from, tile.size() * sizeof(T), d.up->get());
        }
        return part.last > part.first;
    }

    // The part's fresh tiles that are not registered, into the pinned A layout.
    void pack_fresh(Device<T>& d, const ChunkPlan& ch, const ChunkSchedule& cs, const ChunkPart& part,
                    const std::vector<char>& straight) {
        std::vector<std::size_t> staged;
        for (std::size_t x : part.fresh)
            if (!straight[x - part.first]) staged.push_back(cs.order[x]);
        if (staged.empty()) return;
        d.a_host.reserve(std::max<size_type>(d.schedule.a_values, 1));  // once: it never grows
        Timer pack;
        size_type packed = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : packed) if (staged.size() > 1)
        for (std::size_t f = 0; f < staged.size(); ++f) {
            const TileBuffer<T>& tile = a_[ch.a_tiles[staged[f]]];
            std::memcpy(d.a_host.data() + cs.a_layout[staged[f]], tile.data(), tile.size() * sizeof(T));
            packed += static_cast<size_type>(tile.size() * sizeof(T));
        }
        r_.a_packed_bytes += packed;
        r_.host_copy_seconds += pack.seconds();
    }

    // The calls of one part on their streams; with `waves`, each stream records
    // (*waves)[w][s] where its wave w ends.
    void issue_calls(Device<T>& d, const ChunkSchedule& cs, const ChunkPart& part,
                     std::vector<std::vector<cuda::Event>>* waves) {
        const std::size_t g = d.schedule.operands.size();
        for (std::size_t x = 0; x < part.calls.size(); ++x) {
            const GemmCall& call = part.calls[x];
            cuda::GemmHandle& h = d.handles[static_cast<std::size_t>(call.stream)];
            const T beta = call.overwrite ? T(0) : T(1);
            if (call.count == 1) {
                const GemmOperands& o = d.schedule.operands[static_cast<std::size_t>(call.first)];
                cuda::gemm(h, call.m, call.n, call.k, T(1), a_base(d, cs) + o.a, call.m,
                           d.block_buf.data() + o.b, call.k, beta, d.block_buf.data() + o.c, call.m);
            } else {
                T* const* ptr = d.pointers.data() + call.first;
                cuda::gemm_batched(h, call.m, call.n, call.k, T(1), ptr, call.m, ptr + g, call.k, beta, ptr + 2 * g,
                                   call.m, call.count);
            }
            r_.flops += 2.0 * double(call.m) * double(call.n) * double(call.k) * double(call.count);
            r_.gemms += call.count;
            // Calls go wave by wave: every stream's wave ends before the next one's calls.
            const bool wave_ends = x + 1 == part.calls.size() || part.calls[x + 1].wave != call.wave;
            if (waves && wave_ends)
                for (int s = 0; s < streams_per_device; ++s)
                    TESSEL_CUDA_CHECK(cudaEventRecord((*waves)[call.wave][s].get(), d.compute[s].get()));
        }
    }

    // The part's sends, each once its wave has run (`waves`, as issue_calls recorded them).
    void send_part(Device<T>& d, const BlockPlan& b, const BlockSchedule& bs, const ChunkPart& part,
                   const std::vector<std::vector<cuda::Event>>& waves) {
        for (const CSend& send : part.sends) {
            const std::span<const cuda::Event> ends(waves[send.wave]);  // every stream's, or the send's stream's
            send_c_down(d, b, bs, send.c_end,
                        send.stream < 0 ? ends : ends.subspan(static_cast<std::size_t>(send.stream), 1));
        }
    }

    // C tiles c_order[c_sent .. until) of the block down once the compute streams reach `after`
    // (the down stream waits for them even when no tile is left), straight into their host
    // buffers when registered, else through the staging windows; each tile is handed to its
    // owner as soon as its values are in.
    void send_c_down(Device<T>& d, const BlockPlan& b, const BlockSchedule& bs, std::size_t until,
                     std::span<const cuda::Event> after) {
        cudaStream_t down = d.down->get();
        for (const auto& e : after) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(down, e.get(), 0));
        if (until <= d.c_sent) return;
        hand_over_c(d, b, false);
        d.timeline->mark(BlockTimeline::first_c_down, down);
        const TileShape& shape = plan_.product.c_shape;
        CBatch straight;
        std::vector<std::size_t> staged;  // the current run of tiles through the windows
        std::vector<PackedTile> packed;
        // A run of consecutive staged tiles, each whole as laid out, down to the offset `end`.
        auto flush = [&](size_type end) {
            if (packed.empty()) return;
            const size_type base = packed.front().offset;
            for (auto& pt : packed) pt.offset -= base;
            auto tiles = std::make_shared<std::vector<std::size_t>>(std::move(staged));
            d.down_ring->download(
                d.block_buf.data() + base, end - base, std::move(packed),
                [&d, tiles](std::size_t x, size_type) { return d.c_tiles[(*tiles)[x]].data(); },
                [&d, tiles, &b, this](std::size_t x) {
                    ex_.deliver_c(b.c_tiles[(*tiles)[x]], std::move(d.c_tiles[(*tiles)[x]]));
                },
                down);
            packed.clear();
            staged.clear();
        };
        for (std::size_t s = d.c_sent; s < until; ++s) {
            const std::size_t c = bs.c_order[s];  // laid out in this order
            const size_type pos = b.c_tiles[c];
            const size_type values = p_.m_tiling.size(shape.row_of(pos)) * p_.n_tiling.size(shape.col_idx()[pos]);
            d.c_tiles[c].resize(static_cast<std::size_t>(values));
            if (direct(d.c_tiles[c].data())) {
                flush(bs.c_offset[c]);
                cuda::copy_to_host(d.c_tiles[c].data(), d.block_buf.data() + bs.c_offset[c],
                                   std::size_t(values) * sizeof(T), down);
                straight.tiles.push_back(c);
            } else {
                staged.push_back(c);
                packed.push_back({bs.c_offset[c], values});
                r_.c_unpacked_bytes += values * size_type(sizeof(T));
            }
        }
        flush(until < b.c_tiles.size() ? bs.c_offset[bs.c_order[until]] : bs.end);
        if (!straight.tiles.empty()) {
            TESSEL_CUDA_CHECK(cudaEventRecord(straight.done.get(), down));
            d.c_batches.push_back(std::move(straight));
        }
        d.c_sent = until;
    }

    // The straight C copies that have arrived handed to their owners (`wait`: all of them).
    void hand_over_c(Device<T>& d, const BlockPlan& b, bool wait) {
        while (!d.c_batches.empty()) {
            CBatch& batch = d.c_batches.front();
            if (wait)
                wait_if_pending(batch.done);
            else if (cudaEventQuery(batch.done.get()) != cudaSuccess)
                return;
            for (std::size_t s : batch.tiles) ex_.deliver_c(b.c_tiles[s], std::move(d.c_tiles[s]));
            d.c_batches.pop_front();
        }
    }

    // The rest of the block's C down (all of it when the block has no chunks), every window
    // unpacked; the next block may then overwrite the buffer.
    void finish_block(Device<T>& d, const BlockPlan& b, const BlockSchedule& bs) {
        for (int s = 0; s < streams_per_device; ++s) {
            d.timeline->mark_gemms_done(s, d.compute[s].get());  // before the end the down stream waits on
            TESSEL_CUDA_CHECK(cudaEventRecord(d.block_end[s].get(), d.compute[s].get()));
        }
        send_c_down(d, b, bs, b.c_tiles.size(), d.block_end);  // the block ends after every GEMM
        TESSEL_CUDA_CHECK(cudaEventRecord(d.c_down->get(), d.down->get()));
        d.timeline->mark(BlockTimeline::c_down_done, d.down->get());
        d.timeline->disarm();
        d.down_ring->finish();
        hand_over_c(d, b, true);
        r_.d2h_bytes += b.c_bytes;
        ++r_.blocks;
    }

    const Problem& p_;
    const Plan& plan_;
    const ProcessPlan& me_;
    TileStore<T>& a_;
    TileExchange<T>& ex_;
    ExecutionResult& r_;
    size_type part_bytes_;
    double wave_flops_;
    bool register_;  // host tile buffers registered with the device, copied straight
    const GeneratedTiles* generated_;  // B's values as a function of coordinates: made on the device
    std::uint64_t b_base_;             // their hash's base (element_hash::operand_base)
    std::vector<std::unique_ptr<Device<T>>> devices_;
    std::vector<double> ring_seconds_;  // per device: its staging rings' copy time before this run
};

// TESSEL_ABCD_WAVE_FLOPS as a number of flops per wave (positive), else an InvalidInput error.
double wave_flops_from(const char* text) {
    char* end = nullptr;
    const double flops = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(flops > 0))
        TESSEL_INVALID_INPUT("TESSEL_ABCD_WAVE_FLOPS", 0,
                             std::string("'") + text + "' is not a positive number of flops");
    return flops;
}

}  // namespace

template <typename T>
ExecutionResult execute_cuda(const Problem& p, const Plan& plan, TileStore<T>& a, TileStore<T>& c_owned,
                             const ExecutorOptions& o) {
    Timer total;
    ExecutionResult r;
    ExecutorOptions run_options = o;
    if (const char* wave = std::getenv("TESSEL_ABCD_WAVE_FLOPS")) run_options.cuda_wave_flops = wave_flops_from(wave);
    TileExchange<T> ex(p, plan, o.rank, o.comm, a, c_owned);
    ex.start();
    bool b_on_device = dynamic_cast<const GeneratedTiles*>(p.values.get()) != nullptr;
    const char* no_register = std::getenv("TESSEL_ABCD_HOST_REGISTER");
    const bool register_tiles = o.register_host_tiles && !(no_register && std::string(no_register) == "0");
    const bool run_resident = o.rank < plan.grid.size() && plan.processes[o.rank].a_resident;
    if (o.rank < plan.grid.size() && !plan.processes[o.rank].blocks.empty()) {
        Timer setup;
        CudaRun<T> run(p, plan, a, ex, r, run_options, register_tiles);
        r.device_setup_seconds = setup.seconds();
        run.run();
    }
    ex.finish();
    const char* gemm = std::is_same_v<T, double> ? "Dgemm" : "Sgemm";
    r.backend = std::string("cuda: B made ") + (b_on_device ? "on the device" : "on the host") + "; cuBLAS " + gemm +
                " and " + gemm + "Batched by tile shape (" + std::to_string(r.calls) + " calls for " +
                std::to_string(r.gemms) + " GEMMs) on " + std::to_string(streams_per_device) +
                " streams per device; A " +
                (run_resident ? "kept on the device (each tile up once)" : "copied chunk by chunk") + "; C down once; " +
                (register_tiles ? "A and C tiles copied straight from and to their registered host buffers ("
                                      + std::to_string(r.registered_bytes >> 20) + " MiB registered in " +
                                      std::to_string(r.register_seconds) + " s, " +
                                      std::to_string((r.a_packed_bytes + r.c_unpacked_bytes) >> 20) +
                                      " MiB through pinned staging)"
                                : "A and C through pinned staging (host registration off)");
    const auto& cnt = ex.counters();
    r.a_sent_bytes = cnt.a_sent();
    r.a_received_bytes = cnt.a_received();
    r.c_sent_bytes = cnt.c_sent();
    r.c_received_bytes = cnt.c_received();
    r.a_wait_seconds = cnt.wait_seconds;
    r.seconds = total.seconds();
    return r;
}

size_type kept_device_bytes(int device) { return kept_bytes<double>(device) + kept_bytes<float>(device); }

void release_kept_devices() {
    release_kept<double>();
    release_kept<float>();
}

template ExecutionResult execute_cuda<double>(const Problem&, const Plan&, TileStore<double>&, TileStore<double>&,
                                              const ExecutorOptions&);
template ExecutionResult execute_cuda<float>(const Problem&, const Plan&, TileStore<float>&, TileStore<float>&,
                                             const ExecutorOptions&);

}  // namespace tessel::abcd
