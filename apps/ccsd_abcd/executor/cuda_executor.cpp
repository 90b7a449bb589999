// The cuda executor (paper sections 3.2.2-3.2.3): per block, its B tiles (made on the host on
// demand) and zeroed C tiles go to the device once; per chunk, the A tiles are copied into one
// of two device buffers while the GEMMs of the previous chunk run (double buffering), the GEMMs
// on several streams (one stream per C tile, so updates of a tile stay ordered); at the end of
// a block the C tiles come back and leave for their owners. One host thread drives all the
// devices of the process as a round of non-blocking steps and lets MPI progress in between.
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/executor/tile_exchange.hpp"
#include "core/backend.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_spmm.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {

constexpr int streams_per_device = 4;
constexpr size_type align_values = 64;  // 256 bytes in double, so every tile starts aligned

size_type round_up(size_type x) { return (x + align_values - 1) / align_values * align_values; }

// Everything one device needs, released in the destructor.
template <typename T>
struct Device {
    int id = 0;                    // CUDA device
    std::vector<std::size_t> blocks;  // indices into the process's blocks
    std::size_t block = 0;         // cursor into `blocks`
    int chunk = -1;                // next chunk to compute; -1 at a block's start
    // Streams and events are made in setup, once the device is current.
    std::vector<cuda::Stream> compute;      // streams_per_device of them
    std::vector<cuda::GemmHandle> handles;  // one per compute stream (core's cuBLAS GEMM)
    std::optional<cuda::Stream> copy;
    cuda::DeviceBuffer<T> block_buf;              // B tiles then C tiles of the current block
    std::array<cuda::DeviceBuffer<T>, 2> chunk_buf;
    std::array<cuda::PinnedBuffer<T>, 2> chunk_host;  // pinned staging of A chunks
    std::array<cuda::PinnedBuffer<T>, 2> b_host;      // pinned staging of B batches
    cuda::PinnedBuffer<T> c_host;                     // pinned: C of a block on its way back
    size_type b_stage_values = 0;
    std::vector<cuda::Event> copied;                 // chunk buffer x is loaded (x = 0, 1)
    std::vector<std::vector<cuda::Event>> computed;  // [x][s]: GEMMs of stream s on buffer x done
    std::vector<cuda::Event> b_copied;               // B staging x is free again
    std::optional<cuda::Event> c_back;
    std::vector<size_type> b_offset, c_offset;  // of the current block, in values
    std::vector<std::vector<size_type>> a_offset;  // per chunk of the current block

    ~Device() {
        // Wait for the device before its streams, events and buffers go (members, in reverse).
        cudaSetDevice(id);
        cudaDeviceSynchronize();
        handles.clear();  // before their streams
    }
};

template <typename T>
class CudaRun {
public:
    CudaRun(const Problem& p, const Plan& plan, TileStore<T>& a, TileExchange<T>& ex, ExecutionResult& r, int rank,
            int first_device)
        : p_(p), plan_(plan), me_(plan.processes[rank]), a_(a), ex_(ex), r_(r) {
        const int count = cuda::device_count();
        if (count == 0) TESSEL_THROW(CudaError, "the cuda backend found no CUDA device");
        int devices = 0;
        for (const auto& b : me_.blocks) devices = std::max(devices, b.device + 1);
        devices_.resize(static_cast<std::size_t>(devices));
        for (int d = 0; d < devices; ++d) devices_[d] = std::make_unique<Device<T>>();
        for (std::size_t b = 0; b < me_.blocks.size(); ++b) devices_[me_.blocks[b].device]->blocks.push_back(b);
        for (int d = 0; d < devices; ++d) setup(*devices_[d], (first_device + d) % count);
    }

    void run() {
        bool busy = true;
        while (busy) {
            busy = false;
            for (auto& d : devices_)
                if (step(*d)) busy = true;
            ex_.progress();
        }
    }

private:
    size_type tile_values(const TileShape& s, const Tiling& rt, const Tiling& ct, size_type pos) const {
        return rt.size(s.row_of(pos)) * ct.size(s.col_idx()[pos]);
    }

    void setup(Device<T>& d, int id) {
        d.id = id;
        TESSEL_CUDA_CHECK(cudaSetDevice(id));
        size_type block_values = 0, chunk_values = 0, c_values = 0, b_tile_max = 0;
        for (auto bi : d.blocks) {
            const BlockPlan& b = me_.blocks[bi];
            size_type bv = 0, cv = 0;
            for (auto pos : b.b_tiles) {
                const size_type v = tile_values(p_.b_shape, p_.k_tiling, p_.n_tiling, pos);
                bv += round_up(v);
                b_tile_max = std::max(b_tile_max, v);
            }
            for (auto pos : b.c_tiles) cv += round_up(tile_values(plan_.product.c_shape, p_.m_tiling, p_.n_tiling, pos));
            block_values = std::max(block_values, bv + cv);
            c_values = std::max(c_values, cv);
            for (const auto& ch : b.chunks) {
                size_type av = 0;
                for (auto pos : ch.a_tiles) av += round_up(tile_values(p_.a_shape, p_.m_tiling, p_.k_tiling, pos));
                chunk_values = std::max(chunk_values, av);
            }
        }
        // B goes up in batches of at least one tile and at most 64 MiB of pinned staging.
        d.b_stage_values = std::max(b_tile_max, size_type(64 << 20) / size_type(sizeof(T)));
        for (int s = 0; s < streams_per_device; ++s) {
            d.compute.emplace_back();
            d.handles.emplace_back(static_cast<void*>(d.compute.back().get()));
        }
        d.copy.emplace();
        const auto at_least_one = [](size_type values) { return std::max<size_type>(values, 1); };
        d.block_buf = cuda::DeviceBuffer<T>(at_least_one(block_values));
        for (int x = 0; x < 2; ++x) {
            d.chunk_buf[x] = cuda::DeviceBuffer<T>(at_least_one(chunk_values));
            d.chunk_host[x].reserve(at_least_one(chunk_values));
            d.b_host[x].reserve(at_least_one(d.b_stage_values));
            d.copied.emplace_back();
            d.b_copied.emplace_back();
            d.computed.emplace_back(streams_per_device);
        }
        d.c_host.reserve(at_least_one(c_values));
        d.c_back.emplace();
    }

    // One non-blocking step of a device: start a block, or compute a chunk and stage the next,
    // or bring a finished block's C back. False when the device has nothing left.
    bool step(Device<T>& d) {
        if (d.block >= d.blocks.size()) return false;
        TESSEL_CUDA_CHECK(cudaSetDevice(d.id));
        const BlockPlan& b = me_.blocks[d.blocks[d.block]];
        if (d.chunk < 0) {
            start_block(d, b);
            if (!b.chunks.empty()) stage_chunk(d, b, 0);
            d.chunk = 0;
            return true;
        }
        if (d.chunk < static_cast<int>(b.chunks.size())) {
            compute_chunk(d, b, d.chunk);
            if (d.chunk + 1 < static_cast<int>(b.chunks.size())) stage_chunk(d, b, d.chunk + 1);
            ++d.chunk;
            return true;
        }
        finish_block(d, b, d.chunk);
        ++d.block;
        d.chunk = -1;
        return d.block < d.blocks.size();
    }

    // B tiles made on the host in parallel batches into pinned memory and copied up; C zeroed.
    void start_block(Device<T>& d, const BlockPlan& b) {
        const TileShape& bs = p_.b_shape;
        d.b_offset.assign(b.b_tiles.size(), 0);
        size_type at = 0;
        for (std::size_t s = 0; s < b.b_tiles.size(); ++s) {
            d.b_offset[s] = at;
            at += round_up(tile_values(bs, p_.k_tiling, p_.n_tiling, b.b_tiles[s]));
        }
        d.c_offset.assign(b.c_tiles.size(), 0);
        const size_type c_begin = at;
        for (std::size_t s = 0; s < b.c_tiles.size(); ++s) {
            d.c_offset[s] = at;
            at += round_up(tile_values(plan_.product.c_shape, p_.m_tiling, p_.n_tiling, b.c_tiles[s]));
        }
        // The previous block's C must be back before its memory is overwritten: same stream.
        std::size_t first = 0;
        int batch = 0;
        while (first < b.b_tiles.size()) {
            std::size_t last = first;
            size_type values = 0;
            while (last < b.b_tiles.size() &&
                   values + tile_values(bs, p_.k_tiling, p_.n_tiling, b.b_tiles[last]) <= d.b_stage_values)
                values += tile_values(bs, p_.k_tiling, p_.n_tiling, b.b_tiles[last++]);
            TESSEL_CUDA_CHECK(cudaEventSynchronize(d.b_copied[batch].get()));
            T* stage = d.b_host[batch].data();
            std::vector<size_type> off(last - first + 1, 0);
            for (std::size_t s = first; s < last; ++s)
                off[s - first + 1] = off[s - first] + tile_values(bs, p_.k_tiling, p_.n_tiling, b.b_tiles[s]);
            Timer g;
#pragma omp parallel for schedule(dynamic, 1)
            for (std::size_t s = first; s < last; ++s) {
                const size_type pos = b.b_tiles[s];
                p_.values->fill(Operand::b, bs.row_of(pos), bs.col_idx()[pos], stage + off[s - first]);
            }
            r_.b_generation_seconds += g.seconds() * omp_get_max_threads();
            for (std::size_t s = first; s < last; ++s)
                TESSEL_CUDA_CHECK(cudaMemcpyAsync(d.block_buf.data() + d.b_offset[s], stage + off[s - first],
                                                  static_cast<std::size_t>(off[s - first + 1] - off[s - first]) * sizeof(T),
                                                  cudaMemcpyHostToDevice, d.copy->get()));
            TESSEL_CUDA_CHECK(cudaEventRecord(d.b_copied[batch].get(), d.copy->get()));
            batch ^= 1;
            first = last;
            ex_.progress();
        }
        if (at > c_begin)
            TESSEL_CUDA_CHECK(cudaMemsetAsync(d.block_buf.data() + c_begin, 0, static_cast<std::size_t>(at - c_begin) * sizeof(T), d.copy->get()));
        r_.h2d_bytes += b.b_bytes;
        d.a_offset.assign(b.chunks.size(), {});
    }

    // Chunk n: its A tiles (received by now) packed into pinned memory and copied into device
    // buffer n mod 2 once the GEMMs of chunk n - 2, which used that buffer, are done.
    void stage_chunk(Device<T>& d, const BlockPlan& b, int n) {
        const ChunkPlan& ch = b.chunks[n];
        ex_.wait_for(ch.a_tiles);
        const int x = n % 2;
        TESSEL_CUDA_CHECK(cudaEventSynchronize(d.copied[x].get()));  // the staging buffer is free
        auto& off = d.a_offset[n];
        off.assign(ch.a_tiles.size(), 0);
        size_type at = 0;
        for (std::size_t t = 0; t < ch.a_tiles.size(); ++t) {
            const auto& tile = a_[ch.a_tiles[t]];
            off[t] = at;
            std::memcpy(d.chunk_host[x].data() + at, tile.data(), tile.size() * sizeof(T));
            at += round_up(static_cast<size_type>(tile.size()));
        }
        for (int s = 0; s < streams_per_device; ++s) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(d.copy->get(), d.computed[x][s].get(), 0));
        TESSEL_CUDA_CHECK(cudaMemcpyAsync(d.chunk_buf[x].data(), d.chunk_host[x].data(), static_cast<std::size_t>(at) * sizeof(T),
                                          cudaMemcpyHostToDevice, d.copy->get()));
        TESSEL_CUDA_CHECK(cudaEventRecord(d.copied[x].get(), d.copy->get()));
        r_.h2d_bytes += ch.bytes;
    }

    // The GEMMs of chunk n: C(i, c) += A(i, k)·B(k, c) for its A tiles and the block's columns.
    void compute_chunk(Device<T>& d, const BlockPlan& b, int n) {
        const ChunkPlan& ch = b.chunks[n];
        const int x = n % 2;
        const TileShape& as = p_.a_shape;
        const TileShape& bs = p_.b_shape;
        const TileShape& cs = plan_.product.c_shape;
        for (int s = 0; s < streams_per_device; ++s) TESSEL_CUDA_CHECK(cudaStreamWaitEvent(d.compute[s].get(), d.copied[x].get(), 0));
        for (std::size_t t = 0; t < ch.a_tiles.size(); ++t) {
            const size_type apos = ch.a_tiles[t];
            const size_type i = as.row_of(apos), k = as.col_idx()[apos];
            const size_type m = p_.m_tiling.size(i), kk = p_.k_tiling.size(k);
            // The block's B tiles of row k: b_tiles is sorted, so they are contiguous.
            auto lo = std::lower_bound(b.b_tiles.begin(), b.b_tiles.end(), bs.row_ptr()[k]);
            auto hi = std::lower_bound(b.b_tiles.begin(), b.b_tiles.end(), bs.row_ptr()[k + 1]);
            for (auto it = lo; it != hi; ++it) {
                const auto bslot = static_cast<std::size_t>(it - b.b_tiles.begin());
                const size_type col = bs.col_idx()[*it];
                const size_type ncol = p_.n_tiling.size(col);
                const size_type cpos = cs.find(i, col);
                const auto cslot = static_cast<std::size_t>(
                    std::lower_bound(b.c_tiles.begin(), b.c_tiles.end(), cpos) - b.c_tiles.begin());
                const int s = static_cast<int>(cslot % streams_per_device);
                cuda::gemm(d.handles[static_cast<std::size_t>(s)], m, ncol, kk, T(1), d.chunk_buf[x].data() + d.a_offset[n][t], m,
                           d.block_buf.data() + d.b_offset[bslot], kk, T(1), d.block_buf.data() + d.c_offset[cslot], m);
                r_.flops += 2.0 * double(m) * double(ncol) * double(kk);
                ++r_.gemms;
            }
        }
        for (int s = 0; s < streams_per_device; ++s) TESSEL_CUDA_CHECK(cudaEventRecord(d.computed[x][s].get(), d.compute[s].get()));
        ++r_.chunks;
    }

    // C of the block back to the host (after its last chunk's GEMMs), then to the owners.
    void finish_block(Device<T>& d, const BlockPlan& b, int chunks) {
        const TileShape& cs = plan_.product.c_shape;
        if (chunks > 0)
            for (int s = 0; s < streams_per_device; ++s)
                TESSEL_CUDA_CHECK(cudaStreamWaitEvent(d.copy->get(), d.computed[(chunks - 1) % 2][s].get(), 0));
        size_type at = 0;
        std::vector<size_type> host_off(b.c_tiles.size());
        for (std::size_t s = 0; s < b.c_tiles.size(); ++s) {
            const size_type v = tile_values(cs, p_.m_tiling, p_.n_tiling, b.c_tiles[s]);
            host_off[s] = at;
            TESSEL_CUDA_CHECK(cudaMemcpyAsync(d.c_host.data() + at, d.block_buf.data() + d.c_offset[s], static_cast<std::size_t>(v) * sizeof(T),
                                              cudaMemcpyDeviceToHost, d.copy->get()));
            at += v;
        }
        TESSEL_CUDA_CHECK(cudaEventRecord(d.c_back->get(), d.copy->get()));
        TESSEL_CUDA_CHECK(cudaEventSynchronize(d.c_back->get()));
        for (std::size_t s = 0; s < b.c_tiles.size(); ++s) {
            const size_type v = tile_values(cs, p_.m_tiling, p_.n_tiling, b.c_tiles[s]);
            TileBuffer<T> tile(d.c_host.data() + host_off[s], d.c_host.data() + host_off[s] + v);
            ex_.deliver_c(b.c_tiles[s], std::move(tile));
        }
        r_.d2h_bytes += b.c_bytes;
        ++r_.blocks;
    }

    const Problem& p_;
    const Plan& plan_;
    const ProcessPlan& me_;
    TileStore<T>& a_;
    TileExchange<T>& ex_;
    ExecutionResult& r_;
    std::vector<std::unique_ptr<Device<T>>> devices_;
};

}  // namespace

template <typename T>
ExecutionResult execute_cuda(const Problem& p, const Plan& plan, TileStore<T>& a, TileStore<T>& c_owned,
                             const ExecutorOptions& o) {
    Timer total;
    ExecutionResult r;
    r.backend = std::string("cuda: cuBLAS ") + (std::is_same_v<T, double> ? "Dgemm" : "Sgemm") + " on " +
                std::to_string(streams_per_device) + " streams per device, double-buffered A chunks";
    TileExchange<T> ex(p, plan, o.rank, o.comm, a, c_owned);
    ex.start();
    if (o.rank < plan.grid.size() && !plan.processes[o.rank].blocks.empty()) {
        CudaRun<T> run(p, plan, a, ex, r, o.rank, o.first_device);
        run.run();
    }
    ex.finish();
    const auto& cnt = ex.counters();
    r.a_sent_bytes = cnt.a_sent();
    r.a_received_bytes = cnt.a_received();
    r.c_sent_bytes = cnt.c_sent();
    r.c_received_bytes = cnt.c_received();
    r.a_wait_seconds = cnt.wait_seconds;
    r.seconds = total.seconds();
    return r;
}

template ExecutionResult execute_cuda<double>(const Problem&, const Plan&, TileStore<double>&, TileStore<double>&,
                                              const ExecutorOptions&);
template ExecutionResult execute_cuda<float>(const Problem&, const Plan&, TileStore<float>&, TileStore<float>&,
                                             const ExecutorOptions&);

}  // namespace tessel::abcd
