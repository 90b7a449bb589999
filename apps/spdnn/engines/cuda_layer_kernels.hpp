// The cuda engine's kernels (cuda_layer_kernels.cu). One layer on the device reads its column
// count from device memory, so that the host enqueues layer after layer without waiting:
// Yᵀ lives in N x capacity row-major buffers (ld = capacity); a layer takes the columns
// src[0 .. *count) of its input, writes its output in columns 0 .. *count and flags the
// columns that are not all zero, and its last block turns the flags into the next layer's src
// and count (and the live images' ids) on the device (compact_live on the cuSPARSE path). The
// cpu twin is the core engine (core_engine.cpp: core's tiled ELL SpMM, mark_live_columns,
// gather_columns); the tests compare the two (tests/spdnn/test_cuda_engine.cpp).
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "apps/spdnn/engines/cuda_layer_kernels.hpp needs a build with the CUDA backend"
#endif

#include <cuda_runtime_api.h>

#include <cstdint>

#include "apps/spdnn/network/network.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/types.hpp"

namespace tessel::spdnn::device {

/// A layer's Wᵀ in tiled ELL (core/formats/tiled_ell.hpp), its arrays in device memory; with
/// group > 1 in row groups (core/formats/grouped_ell.hpp: a thread owns `group` rows, warpdispl
/// counts its warps, values holds a slot's `group` values together).
struct LayerArrays {
    size_type rows = 0;
    size_type group = 1;
    size_type block_rows = 0;
    size_type num_blocks = 0;
    size_type max_stage_entries = 0;
    const size_type* buffdispl = nullptr;
    const size_type* mapdispl = nullptr;
    const Index* map = nullptr;
    const size_type* warpdispl = nullptr;
    const std::uint16_t* index = nullptr;
    const Value* values = nullptr;
};

/// The activations of a layer: Yᵀ buffers of `neurons` rows with leading dimension ld.
struct Columns {
    const Value* in = nullptr;        // the previous layer's output (or the scattered images)
    const std::int32_t* src = nullptr;  // the columns of `in` this layer takes, *count of them
    const std::int32_t* count = nullptr;
    Value* out = nullptr;             // column j := the layer on in(:, src[j]), j < *count
    std::int32_t* live = nullptr;     // live[j] := 1 when column j of out is not all zero
    size_type ld = 0;
};

/// Where a layer's compaction puts the next layer's columns: kept[0 .. *kept_count) := the
/// j < *count with live[j] set, ascending; ids_out[p] := ids_in[kept[p]] when ids_out is not
/// null; live[0 .. *count) := 0. `arrived` (fused_layer only) counts the layer kernel's blocks
/// that are done: zero before the first layer, and the last block leaves it zero.
struct Compaction {
    std::int32_t* arrived = nullptr;
    std::int32_t* kept = nullptr;
    std::int32_t* kept_count = nullptr;
    const std::int64_t* ids_in = nullptr;
    std::int64_t* ids_out = nullptr;
};

/// How the fused layer kernel runs: register tile, shared memory, grid over column tiles.
struct LayerLaunch {
    int register_factor = 0;
    size_type shared_bytes = 0;
    size_type column_blocks = 0;  // grid.y; each block strides over the column tiles
    int variant_threads = 1024;   // the kernel variant: the block size it is compiled for
    int min_blocks = 1;           // and the resident blocks per SM its registers allow
    size_type shared_without_optin = 0;  // the device's limits, bytes per block
    size_type shared_optin = 0;
};

/// The launch for a layer whose column count is at most max_columns: the register factor
/// (requested, or the largest of 32/16/8/4 whose staging buffer leaves three blocks per
/// multiprocessor), the kernel variant whose registers leave room for as many resident blocks
/// as shared memory and threads do, and enough column blocks for two waves, never more than
/// there are tiles.
/// Throws InvalidInput (factor not 0/4/8/16/32, block_rows not a multiple of 32 up to 1024),
/// CudaError (the stage does not fit in shared memory).
LayerLaunch plan_layer(const LayerArrays& w, size_type max_columns, int register_factor);

/// Columns.out := min(cap, max(0, Wᵀ·in(:, src) + bias)) with the epilogue `ep` (beta = 0),
/// Columns.live set for the nonzero columns (live must be zero on entry), then the compaction
/// `next` in the same kernel (its last block; live is zero again after it). Nothing is read
/// back: the count comes from device memory.
void fused_layer(const LayerArrays& w, const Columns& columns, const Compaction& next, const Epilogue<Value>& ep,
                 const LayerLaunch& launch, cudaStream_t stream);

/// The launch of the row-group layer kernel for a layer in row groups (w.group > 1): the
/// register factor (requested, or 32 / group; 64 / group also taken), the staging buffer in
/// whole octets of entries, enough column blocks for two waves.
/// Throws InvalidInput (a factor the groups do not take), CudaError (the stage does not fit).
LayerLaunch plan_grouped_layer(const LayerArrays& w, size_type max_columns, int register_factor);

/// fused_layer's work on a layer in row groups: each thread sums `group` output neurons' slots,
/// one read of a staged input serving all of them; the same epilogue, flags and compaction.
void grouped_layer(const LayerArrays& w, const Columns& columns, const Compaction& next, const Epilogue<Value>& ep,
                   const LayerLaunch& launch, cudaStream_t stream);

/// The compaction `next` of live[0 .. *count) (next.arrived unused) in a kernel of one block:
/// the cuSPARSE path's, after its separate passes.
void compact_live(std::int32_t* live, const std::int32_t* count, const Compaction& next, cudaStream_t stream);

/// src[j] := j for j < n; *count := n.
void identity_columns(std::int32_t* src, std::int32_t* count, size_type n, cudaStream_t stream);

/// out(:, j) := in(:, src[j]) for j < *count (rows x ld buffers): the cuSPARSE path's input.
void gather_columns(const Value* in, const std::int32_t* src, const std::int32_t* count, Value* out, size_type rows,
                    size_type ld, size_type max_columns, cudaStream_t stream);

/// live[j] := 1 for the j < *count whose column of c (rows x ld) is not all zero (live zero
/// on entry): the cuSPARSE path's separate pass.
void mark_live(const Value* c, const std::int32_t* count, std::int32_t* live, size_type rows, size_type ld,
               size_type max_columns, cudaStream_t stream);

}  // namespace tessel::spdnn::device
