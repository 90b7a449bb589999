// cpu transposed tiled-ELL SpMM, C := epilogue(Aᵀ·B), on A's own tiles: no Aᵀ is stored.
// Each thread takes a contiguous run of row blocks (about equal slots) and scatters their
// products into its own n x R sums (kept per thread between calls): per stage into a buffer of the stage's columns (L1), then
// onto those columns. The threads' sums are added in thread order, so a result depends on the
// thread count but not on timing. Compiled once per x86-64 level (core/cpu/isa_region.hpp);
// the entry point that checks the operands and picks the level is core/cpu/spmm_entry_points.cpp.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/cpu/tiled_ell_block.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm_kernels.hpp"

TESSEL_CPU_ISA_BEGIN

namespace {

template <typename V>
using Buffer = std::vector<V, AlignedAllocator<V>>;

/// Slots of row block b.
template <typename V, typename I>
size_type block_slots(const TiledEll<V, I>& a, size_type b) {
    const size_type w = a.warps_per_block();
    return a.warpdispl[a.buffdispl[b + 1] * w] - a.warpdispl[a.buffdispl[b] * w];
}

/// Block boundaries of `parts` contiguous runs with about equal slots.
template <typename V, typename I>
std::vector<size_type> split_blocks(const TiledEll<V, I>& a, int parts) {
    const size_type blocks = a.num_blocks();
    const double total = double(a.stored() / 32);
    std::vector<size_type> first(static_cast<std::size_t>(parts) + 1, blocks);
    first[0] = 0;
    double done = 0;
    int part = 1;
    for (size_type b = 0; b < blocks && part < parts; ++b) {
        done += double(block_slots(a, b));
        while (part < parts && done >= total * part / parts) first[part++] = b + 1;
    }
    return first;
}

/// Rows of block b of B (columns k0 .. k0 + width) packed R-wide; rows past the end are zero.
template <int R, typename V, typename I>
void pack_block_rows(const TiledEll<V, I>& a, size_type b, DenseView<const V> in, size_type k0, size_type width,
                     V* packed) {
    const size_type r0 = b * a.config.block_rows;
    for (size_type i = 0; i < a.config.block_rows; ++i) {
        const size_type row = r0 + i;
        for (int k = 0; k < R; ++k)
            packed[i * R + k] = row < a.rows && size_type(k) < width ? in.data[row * in.ld + k0 + k] : V{0};
    }
}

/// One warp's slots [m0, m1) of a stage added into `buf`, lane by lane in runs of 16 slots
/// (their 3 KiB of indices and values stay in L1 while the 32 lanes pass): a lane is one row
/// (in xct one ray), whose entries are distinct columns, so consecutive additions never wait
/// for each other (slot by slot, neighbouring rows often hit the same column). Half values are
/// widened a run at a time (vector conversions, not one per entry).
template <int R, bool Half, typename V, typename I>
void scatter_warp(const TiledEll<V, I>& a, size_type m0, size_type m1, const V* x, V* buf) {
    constexpr size_type run = 16;
    alignas(64) V widened[Half ? run * 32 : 1];
    for (size_type r0 = m0; r0 < m1; r0 += run) {
        const size_type r1 = std::min(m1, r0 + run);
        detail::prefetch_slots<run, Half>(a, r0 + run);  // the next run (scatter 8 % faster on xct)
        // The run's values: in place, or widened into `widened` (entry e at e - r0·32).
        const V* values;
        if constexpr (Half) {
            detail::widen_halves(a.half_values.data() + r0 * 32, widened, int((r1 - r0) * 32));
            values = widened;
        } else {
            values = a.values.data() + r0 * 32;
        }
        // Lanes l and l + 16 together: two independent chains of additions (rows 16 apart
        // rarely share a column; 18 % less time than one lane at a time on xct, four chains
        // gain nothing more), each lane's x in registers.
        constexpr int chains = 2, apart = 32 / chains;
        for (int lane = 0; lane < apart; ++lane) {
            V xs[chains][R];
            for (int c = 0; c < chains; ++c)
                for (int k = 0; k < R; ++k) xs[c][k] = x[(lane + c * apart) * R + k];
            const std::uint16_t* index = a.index.data() + r0 * 32 + lane;
            const V* value = values + lane;
            for (size_type m = 0; m < r1 - r0; ++m)
                for (int c = 0; c < chains; ++c) {
                    const V v = value[m * 32 + c * apart];
                    V* t = buf + size_type(index[m * 32 + c * apart]) * R;
#pragma omp simd
                    for (int k = 0; k < R; ++k) t[k] += v * xs[c][k];
                }
        }
    }
}

/// Block b's products added to `sums` (n x R): per stage into `buf`, then onto its columns.
template <int R, bool Half, typename V, typename I>
void scatter_block(const TiledEll<V, I>& a, size_type b, const V* packed, V* buf, V* sums) {
    const size_type warps = a.warps_per_block();
    for (size_type s = a.buffdispl[b]; s < a.buffdispl[b + 1]; ++s) {
        const size_type staged = a.mapdispl[s + 1] - a.mapdispl[s];
        std::fill(buf, buf + staged * R, V{0});
        for (size_type w = 0; w < warps; ++w)
            scatter_warp<R, Half>(a, a.warpdispl[s * warps + w], a.warpdispl[s * warps + w + 1], packed + w * 32 * R,
                                  buf);
        const I* map = a.map.data() + a.mapdispl[s];
        for (size_type e = 0; e < staged; ++e) {
            V* o = sums + size_type(map[e]) * R;
#pragma omp simd
            for (int k = 0; k < R; ++k) o[k] += buf[e * R + k];
        }
    }
}

/// C's rows [first, last): the threads' sums added in thread order, then the epilogue.
template <int R, typename V>
void finish_rows(const std::vector<const Buffer<V>*>& sums, size_type first, size_type last, DenseView<V> c, size_type k0,
                 size_type width, const Epilogue<V>& ep) {
    for (size_type p = first; p < last; ++p)
        for (size_type k = 0; k < width; ++k) {
            V z = 0;
            for (const Buffer<V>* s : sums) z += (*s)[p * R + k];
            V& out = c.data[p * c.ld + k0 + k];
            out = ep.apply(z, out);
        }
}

/// A thread's buffers, kept between calls: fresh pages cost more than the product on some
/// machines (first touch), and an iterative solver calls with the same sizes every time.
template <typename V>
struct TransposedScratch {
    Buffer<V> sums, packed, buf;
};

template <typename V>
TransposedScratch<V>& thread_scratch() {
    static thread_local TransposedScratch<V> scratch;
    return scratch;
}

template <int R, bool Half, typename V, typename I>
void run_transposed(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep) {
    const int threads = omp_get_max_threads();
    const std::vector<size_type> first = split_blocks(a, threads);
    std::vector<const Buffer<V>*> sums(static_cast<std::size_t>(threads));
    const size_type k = b.cols;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        auto& mine = thread_scratch<V>();
        mine.packed.resize(std::size_t(a.config.block_rows * R));
        mine.buf.resize(std::size_t(a.max_stage_entries() * R));
        sums[t] = &mine.sums;
        for (size_type k0 = 0; k0 < k; k0 += R) {
            const size_type width = std::min<size_type>(R, k - k0);
            mine.sums.assign(std::size_t(a.cols * R), V{0});
            for (size_type blk = first[t]; blk < first[t + 1]; ++blk) {
                pack_block_rows<R>(a, blk, b, k0, width, mine.packed.data());
                scatter_block<R, Half>(a, blk, mine.packed.data(), mine.buf.data(), mine.sums.data());
            }
#pragma omp barrier
            const size_type chunk = (a.cols + threads - 1) / threads;
            finish_rows<R>(sums, std::min(a.cols, t * chunk), std::min(a.cols, (t + 1) * chunk), c, k0, width, ep);
            // Before the next columns reuse the sums; after the last ones the region's end waits
            // (a barrier fewer per product: each costs a time slice when the cores are shared).
            if (k0 + R < k) {
#pragma omp barrier
            }
        }
    }
}

}  // namespace

/// cpu::spmm_tiled_ell_transposed at this level, on checked operands (a compiled factor).
template <typename V, typename I>
void spmm_tiled_ell_transposed(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                               int register_factor) {
    detail::dispatch_register_factor(register_factor, [&]<int R>() {
        if (b.cols == 0 || a.cols == 0) return;
        if (a.stores_half())
            run_transposed<R, true>(a, b, c, ep);
        else
            run_transposed<R, false>(a, b, c, ep);
    });
}

#define TESSEL_INSTANTIATE(V, I)                                                                             \
    template void spmm_tiled_ell_transposed(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>,        \
                                            const Epilogue<V>&, int);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

TESSEL_CPU_ISA_END
