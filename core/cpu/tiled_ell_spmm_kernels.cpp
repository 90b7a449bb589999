// cpu tiled-ELL SpMM on row-major operands: one task per (row block, register tile of columns).
// Compiled once per x86-64 level (core/cpu/isa_region.hpp); the entry point that checks the
// operands and picks the level is in core/cpu/spmm_entry_points.cpp.
#include <algorithm>

#include "core/cpu/tiled_ell_block.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm_kernels.hpp"

TESSEL_CPU_ISA_BEGIN

namespace {

template <int R, typename V, typename I>
void run_row_major(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep) {
    const size_type k = b.cols, tiles = (k + R - 1) / R;
    const bool stage = a.average_reuse() >= detail::staging_reuse;
    const bool slot_order = detail::prefers_slot_order(a);
    // C written once and far larger than the cache: full register tiles skip the read for
    // ownership (as the CSR kernels do). Not when beta reads C.
    const bool stream = !ep.reads_output() && !slot_order &&
                        detail::use_streaming_stores(c.data, c.rows, c.ld * size_type(sizeof(V)), R * size_type(sizeof(V)));
    // A thread takes consecutive blocks until they cover 64 KiB of C: one block at a time
    // interleaved the threads' rows of B and C in pieces of a few KiB at small k, which the
    // hardware prefetchers follow worse; large blocks are still handed out one by one.
    const size_type block_bytes = a.config.block_rows * R * size_type(sizeof(V));
    const size_type run = std::max<size_type>(1, (size_type(64) << 10) / block_bytes);
#pragma omp parallel
    {
        detail::BlockScratch<V> scratch;
#pragma omp for schedule(dynamic, run) collapse(2) nowait
        for (size_type blk = 0; blk < a.num_blocks(); ++blk)
            for (size_type t = 0; t < tiles; ++t) {
                const size_type k0 = t * R, width = std::min<size_type>(R, k - k0);
                detail::block_kernel<false, R>(a, blk, {b.data, b.ld, k0, width}, {c.data, c.ld, k0, width, stream},
                                               ep, scratch, stage, slot_order);
            }
        if (stream) detail::streaming_fence();
    }
}

}  // namespace

/// cpu::spmm_tiled_ell at this level, on checked operands; register_factor is a compiled one.
template <typename V, typename I>
void spmm_tiled_ell(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                    int register_factor) {
    detail::dispatch_register_factor(register_factor, [&]<int R>() {
        if (b.cols > 0 && a.rows > 0) run_row_major<R>(a, b, c, ep);
    });
}

#define TESSEL_INSTANTIATE(V, I)                                                                          \
    template void spmm_tiled_ell(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&, \
                                 int);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

TESSEL_CPU_ISA_END
