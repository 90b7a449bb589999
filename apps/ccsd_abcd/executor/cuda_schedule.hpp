// What the cuda executor does on one device, worked out before it starts (plain C++, no CUDA):
// where every B, C and A tile lies in the device buffers, each chunk's A tiles in parts that go
// up one after the other, and the GEMMs of every part grouped into cuBLAS calls. A C tile's
// GEMMs all go to one stream (so its updates stay ordered). On a stream, a part's C tiles are
// cut into waves of about a GFLOP of GEMMs each, run one after another; within a wave the
// GEMMs run in rounds (round r holds the r-th GEMM of each C tile), and the GEMMs of a round
// with the same shape m x n x k (the tile-size class) make one batched call. In the block's last
// chunk a wave's C tiles are final when it ends, and go down then: C, which bounds a block
// (the link), leaves steadily from the first wave on instead of row of A by row of A.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"
#include "core/types.hpp"

namespace tessel::abcd {

/// One tile GEMM's operands, offsets in values: A in its chunk's buffer, B and C in the block's.
struct GemmOperands {
    size_type a = 0, b = 0, c = 0;
};

/// One cuBLAS call: `count` GEMMs of one shape (operands [first, first + count) of the
/// schedule), C := C + A·B, or C := A·B when `overwrite` (the first GEMMs of their C tiles in
/// the block: C is not zeroed first), leading dimensions m, k, m; in wave `wave` of its
/// stream in its part.
struct GemmCall {
    int stream = 0;
    size_type m = 0, n = 0, k = 0;
    size_type first = 0, count = 0;
    bool overwrite = false;
    std::size_t wave = 0;
};

/// C tiles that go down once stream `stream` (every stream when -1) has run wave `wave` of
/// its part's GEMMs: the block's c_order[.. c_end) are final then (those before were sent by
/// earlier sends). Tiles that no GEMM of the last chunk writes go first, after every stream's
/// first wave of the first part with GEMMs (their GEMMs ran on any stream in earlier chunks).
struct CSend {
    int stream = 0;
    std::size_t wave = 0;
    std::size_t c_end = 0;
};

/// One copy of A from the host's pinned copy of the device's A tiles (their layout, see
/// DeviceSchedule::a_values) into a chunk buffer: `values` values from `from` to `to`.
struct ACopy {
    size_type from = 0, to = 0, values = 0;
};

/// A part of a chunk: the A tiles that go up together (a few tens of MiB), and the GEMMs that
/// need no other tile of the chunk, so that they start while the next part is on its way.
struct ChunkPart {
    size_type begin = 0, end = 0;     ///< its values in the chunk buffer (gaps included)
    std::size_t first = 0, last = 0;  ///< its tiles: order[first .. last)
    std::vector<GemmCall> calls;      ///< in issue order: wave by wave, round by round, stream by stream
    std::size_t waves = 0;            ///< waves of its busiest stream
    /// Last chunk of its block: the C tiles each wave makes final, in the order they go down
    /// (by when the wave should end: its stream's flops up to it); empty in other chunks.
    std::vector<CSend> sends;
    /// B made on the device: the block's B tiles this part reads first, made just before its
    /// GEMMs (the first part's GEMMs wait for its own B only): DeviceSchedule::b_tiles[b_first,
    /// b_first + b_count), the largest of b_largest values.
    size_type b_first = 0, b_count = 0, b_largest = 0;
    /// The part's A tiles used here for the first time on the device (indices into
    /// ChunkSchedule::order): they lie one after the other in the device's A layout, from
    /// fresh_begin to fresh_end. The host packs each A tile once, when it is fresh.
    std::vector<std::size_t> fresh;
    size_type fresh_begin = 0, fresh_end = 0;
    /// A not resident: the part's tiles from the host's pinned A layout into the chunk buffer
    /// (runs of tiles that lie in the same order in both merged into one copy).
    std::vector<ACopy> copies;
};

/// One chunk: its A tiles packed at `a_offset` into device chunk buffer `buffer` (0 or 1), by
/// tile row (the rows of the block's last chunk by their A values, smallest first), in parts;
/// the first part ends where its first row does.
struct ChunkSchedule {
    int buffer = 0;
    std::vector<size_type> a_offset;  ///< per A tile of the chunk (the plan's order), in values
    std::vector<size_type> a_layout;  ///< per A tile: its place in the device's A layout
    std::vector<size_type> a_at;      ///< per A tile: where GEMMs read it (a_layout if resident, else a_offset)
    std::vector<std::size_t> order;   ///< the chunk's A tiles in packed order (by row, column)
    size_type values = 0;             ///< the packed chunk, gaps included
    std::vector<ChunkPart> parts;
};

/// One block: its B tiles from 0, its C tiles from c_begin (to `end`) in the block buffer, laid
/// out in c_order (indices into the plan's C tiles of the block): the order they go down (tiles
/// no GEMM of the last chunk writes first, then by the last chunk's sends).
struct BlockSchedule {
    std::vector<size_type> b_offset, c_offset;
    std::vector<std::size_t> c_order;
    size_type c_begin = 0, end = 0;
    bool zero_c = false;  ///< a C tile has no GEMM: C is zeroed before the block's GEMMs
    std::vector<ChunkSchedule> chunks;
};

/// Every block of one device, and the sizes of the buffers they need. The device's A tiles
/// (every tile its chunks use, once) are laid out in the order of first use: on the device
/// when the plan keeps A there (ProcessPlan::a_resident; GEMMs read A from that layout, no
/// chunk buffers), else in pinned host memory, whence each chunk's tiles are copied.
struct DeviceSchedule {
    bool a_resident = false;
    size_type a_values = 0;  ///< the device's A layout (tiles rounded up to tile_alignment)
    std::vector<BlockSchedule> blocks;
    std::vector<GemmOperands> operands;  ///< every GEMM of the device, in call order
    /// Every block's B tiles (row0, col0 in elements, rows, cols, offset in the block buffer),
    /// part by part (ChunkPart::b_first).
    struct BTile {
        size_type row0 = 0, col0 = 0, rows = 0, cols = 0, offset = 0;
    };
    std::vector<BTile> b_tiles;
    size_type block_values = 0;
    size_type chunk_values[2] = {0, 0};  ///< the largest chunk of each chunk buffer
    size_type gemms = 0, calls = 0;
    std::size_t max_waves = 0;  ///< the most waves of a part with sends
};

/// GEMM work per wave of a stream (about 25 µs of a card's DGEMM): C tiles of large GEMMs
/// make a wave each, small ones share one, and its rounds batch them.
inline constexpr double wave_flops = 1e9;

/// Tiles start at multiples of this many values (256 bytes in double).
inline constexpr size_type tile_alignment = 64;

/// The schedule of `blocks` (indices into process.blocks) on `streams` streams, chunks in parts
/// of about `part_bytes` of A (at least one tile each), waves of about `flops_per_wave`; A
/// resident as process.a_resident says.
DeviceSchedule schedule_device(const Problem& problem, const Plan& plan, const ProcessPlan& process,
                               const std::vector<std::size_t>& blocks, int streams,
                               size_type part_bytes = size_type(64) << 20, double flops_per_wave = wave_flops);

}  // namespace tessel::abcd
