// OpenMP CSR SpMM kernels on row-major dense operands, vectorised over the K right-hand sides.
// Compiled once per x86-64 level (core/cpu/isa_region.hpp); the entry points that check the
// operands and pick the level are in core/cpu/spmm_entry_points.cpp.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/cpu/register_tile.hpp"
#include "core/cpu/streaming_store.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/merge_path.hpp"
#include "core/kernels/spmm_kernels.hpp"

TESSEL_CPU_ISA_BEGIN

namespace {

// Rows of B needed this many nonzeros ahead are prefetched: their addresses come from the
// column indices, which the hardware prefetchers cannot follow. Narrow tiles need more
// entries of look-ahead to cover the same memory latency.
template <int R, typename V>
constexpr size_type prefetch_distance = R * sizeof(V) <= 64 ? 96 : 32;

template <int R, typename V>
inline void prefetch_b_tile(const V* p) {
    for (size_type off = 0; off < R * size_type(sizeof(V)); off += 64)
        __builtin_prefetch(reinterpret_cast<const char*>(p) + off, 0, 3);
}

// acc += entries [begin, end) of a CSR row times B's rows, columns k0 .. k0+R-1, one entry at
// a time (nnz: the matrix's, which bounds the look-ahead).
template <int R, typename V, typename I>
inline void add_row_entries(const I* col, const V* val, size_type begin, size_type end, size_type nnz,
                            const V* b, size_type ldb, size_type k0, V* acc) {
    for (size_type e = begin; e < end; ++e) {
        if (e + prefetch_distance<R, V> < nnz)
            prefetch_b_tile<R>(b + static_cast<size_type>(col[e + prefetch_distance<R, V>]) * ldb + k0);
        const V v = val[e];
        const V* brow = b + static_cast<size_type>(col[e]) * ldb + k0;
#pragma omp simd
        for (int k = 0; k < R; ++k) acc[k] += v * brow[k];
    }
}

// Sum of entries [begin, end) of a CSR row times B's rows, columns k0 .. k0+R-1 (nnz: the
// matrix's, which bounds the look-ahead). When the tile fits one vector register, two
// accumulators alternate so that consecutive fused multiply-adds do not wait for each other.
template <int R, typename V, typename I>
inline void row_tile_sum(const I* col, const V* val, size_type begin, size_type end, size_type nnz,
                         const V* b, size_type ldb, size_type k0, V* acc) {
#pragma omp simd
    for (int k = 0; k < R; ++k) acc[k] = 0;
    size_type e = begin;
    if constexpr (R * sizeof(V) <= 64) {
        alignas(64) V odd[R] = {};
        for (; e + 1 < end; e += 2) {
            if (e + prefetch_distance<R, V> + 1 < nnz) {
                prefetch_b_tile<R>(b + static_cast<size_type>(col[e + prefetch_distance<R, V>]) * ldb + k0);
                prefetch_b_tile<R>(b + static_cast<size_type>(col[e + prefetch_distance<R, V> + 1]) * ldb + k0);
            }
            const V v0 = val[e], v1 = val[e + 1];
            const V* b0 = b + static_cast<size_type>(col[e]) * ldb + k0;
            const V* b1 = b + static_cast<size_type>(col[e + 1]) * ldb + k0;
#pragma omp simd
            for (int k = 0; k < R; ++k) {
                acc[k] += v0 * b0[k];
                odd[k] += v1 * b1[k];
            }
        }
#pragma omp simd
        for (int k = 0; k < R; ++k) acc[k] += odd[k];
    }
    add_row_entries<R>(col, val, e, end, nnz, b, ldb, k0, acc);
}

// Writes a finished row tile (epilogue applied) to C, streamed past the caches when asked.
template <int R, typename V>
inline void store_row_tile(V* crow, V* acc, const Epilogue<V>& ep, bool streaming) {
    if (streaming && (R * sizeof(V)) % detail::cache_line == 0) {
        for (int k = 0; k < R; ++k) acc[k] = ep.apply(acc[k], crow[k]);
        detail::stream_lines(crow, acc, R * sizeof(V));
    } else {
        for (int k = 0; k < R; ++k) crow[k] = ep.apply(acc[k], crow[k]);
    }
}

// K = R columns in one or two vector registers: two rows at a time, their entries interleaved,
// so that the gathers and multiply-adds of one row overlap those of the other.
template <int R, typename V, typename I>
void csr_row_pairs(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                   size_type row_begin, size_type row_end, bool streaming) {
    const auto* rp = a.row_ptr().data();
    const I* col = a.col_idx().data();
    const V* val = a.values().data();
    const size_type nnz = a.nnz();
    size_type i = row_begin;
    for (; i + 1 < row_end; i += 2) {
        alignas(64) V acc0[R] = {}, acc1[R] = {};
        size_type e0 = rp[i], e1 = rp[i + 1];
        const size_type end0 = rp[i + 1], end1 = rp[i + 2];
        for (; e0 < end0 && e1 < end1; ++e0, ++e1) {
            if (e1 + prefetch_distance<R, V> < nnz) {
                prefetch_b_tile<R>(b.data + static_cast<size_type>(col[e0 + prefetch_distance<R, V>]) * b.ld);
                prefetch_b_tile<R>(b.data + static_cast<size_type>(col[e1 + prefetch_distance<R, V>]) * b.ld);
            }
            const V v0 = val[e0], v1 = val[e1];
            const V* b0 = b.data + static_cast<size_type>(col[e0]) * b.ld;
            const V* b1 = b.data + static_cast<size_type>(col[e1]) * b.ld;
#pragma omp simd
            for (int k = 0; k < R; ++k) {
                acc0[k] += v0 * b0[k];
                acc1[k] += v1 * b1[k];
            }
        }
        // the rest of the longer row (at most one of the two is left)
        add_row_entries<R>(col, val, e0, end0, nnz, b.data, b.ld, 0, acc0);
        add_row_entries<R>(col, val, e1, end1, nnz, b.data, b.ld, 0, acc1);
        store_row_tile<R>(c.data + i * c.ld, acc0, ep, streaming);
        store_row_tile<R>(c.data + (i + 1) * c.ld, acc1, ep, streaming);
    }
    if (i < row_end) {
        alignas(64) V acc[R];
        row_tile_sum<R>(col, val, rp[i], rp[i + 1], nnz, b.data, b.ld, 0, acc);
        store_row_tile<R>(c.data + i * c.ld, acc, ep, streaming);
    }
}

template <typename V, typename I>
void csr_rows(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
              size_type row_begin, size_type row_end, bool streaming) {
    const auto* rp = a.row_ptr().data();
    const I* col = a.col_idx().data();
    const V* val = a.values().data();
    // Rows of one or two vector registers run in pairs (12-20 % faster on the stencil and
    // banded matrices at K = 16 float, 8 and 16 double; no clear gain at four registers).
    const size_type row_bytes = b.cols * size_type(sizeof(V));
    if (row_bytes == 64) return csr_row_pairs<64 / sizeof(V)>(a, b, c, ep, row_begin, row_end, streaming);
    if (row_bytes == 128) return csr_row_pairs<128 / sizeof(V)>(a, b, c, ep, row_begin, row_end, streaming);
    for (size_type i = row_begin; i < row_end; ++i)
        detail::for_each_register_tile(b.cols, 32, [&]<int R>(size_type k0) {
            alignas(64) V acc[R];
            row_tile_sum<R>(col, val, rp[i], rp[i + 1], a.nnz(), b.data, b.ld, k0, acc);
            store_row_tile<R>(c.data + i * c.ld + k0, acc, ep, streaming);
        });
}

}  // namespace

namespace {
// Row tiles are at most 32 wide, so C's rows stream when K is a multiple of a line's values
// (every tile but a remainder narrower than a line is then line-aligned).
template <typename V>
bool streams_c(DenseView<V> c) {
    const size_type tile = std::min<size_type>(c.cols, 32) * sizeof(V);
    return detail::use_streaming_stores(c.data, c.rows, c.ld * sizeof(V),
                                        tile - tile % detail::cache_line);
}
}  // namespace

template <typename V, typename I>
void spmm_row_split(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c,
                    const Epilogue<V>& ep) {
    // Long runs of consecutive rows keep the hardware prefetchers on B's and C's streams; 16
    // chunks per thread, taken dynamically, still even out rows of unequal cost.
    const size_type chunk =
        std::max<size_type>(64, a.rows() / (16 * size_type(omp_get_max_threads())) + 1);
    const size_type chunks = (a.rows() + chunk - 1) / chunk;
    const bool streaming = streams_c(c);
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (size_type t = 0; t < chunks; ++t)
            csr_rows(a, b, c, ep, t * chunk, std::min(a.rows(), (t + 1) * chunk), streaming);
        if (streaming) detail::streaming_fence();
    }
}

namespace {

// The row whose partial sum part p carries out to later parts (-1: none): the part ends inside it.
std::vector<size_type> merge_carry_rows(const std::vector<MergeCoord>& bounds, const size_type* rp, size_type rows) {
    std::vector<size_type> carry_row(bounds.size() - 1, -1);
    for (std::size_t p = 0; p + 1 < bounds.size(); ++p) {
        const MergeCoord from = bounds[p], to = bounds[p + 1];
        if (to.row < rows && to.nz > std::max(rp[to.row], from.nz)) carry_row[p] = to.row;
    }
    return carry_row;
}

// Adds the carries to their rows in order, then applies the epilogue once per such row, with
// the row's value before the call (`before`, one row of k per part; read only when beta != 0).
template <typename V>
void merge_fix_up(const std::vector<size_type>& carry_row, const V* carry, const V* before, DenseView<V> c,
                  const Epilogue<V>& ep) {
    const size_type k = c.cols;
    auto finish = [&](size_type p) {
        V* crow = c.data + carry_row[p] * c.ld;
        for (size_type kk = 0; kk < k; ++kk) crow[kk] = ep.apply(crow[kk], before[p * k + kk]);
    };
    size_type last = -1;
    for (size_type p = 0; p < size_type(carry_row.size()); ++p) {
        if (carry_row[p] < 0) continue;
        V* crow = c.data + carry_row[p] * c.ld;
        for (size_type kk = 0; kk < k; ++kk) crow[kk] += carry[p * k + kk];
        if (last >= 0 && carry_row[p] != carry_row[last] && !ep.is_identity()) finish(last);
        last = p;
    }
    if (last >= 0 && !ep.is_identity()) finish(last);
}

}  // namespace

template <typename V, typename I>
void spmm_merge(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep) {
    const size_type rows = a.rows(), nnz = a.nnz(), k = b.cols;
    if (rows == 0 || k == 0) return;
    const auto* rp = a.row_ptr().data();
    const I* col = a.col_idx().data();
    const V* val = a.values().data();
    const int threads = omp_get_max_threads();
    // A few parts per thread smooths the cost of rows that are not all alike.
    const size_type parts = std::max<size_type>(1, std::min<size_type>(4 * threads, rows + nnz));
    const size_type total = rows + nnz, per_part = (total + parts - 1) / parts;
    std::vector<MergeCoord> bounds(static_cast<std::size_t>(parts + 1));
    for (size_type p = 0; p <= parts; ++p) bounds[p] = merge_path_search(std::min(total, p * per_part), rp + 1, rows, nnz);
    const std::vector<size_type> carry_row = merge_carry_rows(bounds, rp, rows);
    std::vector<V, AlignedAllocator<V>> carry(static_cast<std::size_t>(parts * k), V{0});
    // Rows cut between parts are written raw first: keep their old values for beta.
    std::vector<V, AlignedAllocator<V>> before(static_cast<std::size_t>(parts * k), V{0});
    if (ep.reads_output())
        for (size_type p = 0; p < parts; ++p)
            if (carry_row[p] >= 0) std::copy_n(c.data + carry_row[p] * c.ld, k, &before[p * k]);
    Epilogue<V> none{};

    const bool streaming = streams_c(c);
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 1) nowait
    for (size_type p = 0; p < parts; ++p) {
        const MergeCoord from = bounds[p], to = bounds[p + 1];
        for (size_type i = from.row; i < to.row; ++i) {
            // A row whose start was consumed by an earlier part is written raw, fixed up later.
            const bool started_before = i == from.row && from.nz > rp[i];
            const size_type begin = std::max(rp[i], from.nz);
            const Epilogue<V>& epi = started_before ? none : ep;
            detail::for_each_register_tile(k, 32, [&]<int R>(size_type k0) {
                alignas(64) V acc[R];
                row_tile_sum<R>(col, val, begin, rp[i + 1], nnz, b.data, b.ld, k0, acc);
                store_row_tile<R>(c.data + i * c.ld + k0, acc, epi, streaming);
            });
        }
        if (carry_row[p] >= 0)  // the part ends inside row to.row: its partial sum is a carry-out
            detail::for_each_register_tile(k, 32, [&]<int R>(size_type k0) {
                row_tile_sum<R>(col, val, std::max(rp[to.row], from.nz), to.nz, nnz, b.data, b.ld, k0,
                                &carry[p * k + k0]);
            });
    }
    if (streaming) detail::streaming_fence();
    }
    merge_fix_up(carry_row, carry.data(), before.data(), c, ep);
}

#define TESSEL_INSTANTIATE(V, I)                                                                 \
    template void spmm_row_split(const Csr<V, I>&, DenseView<const V>, DenseView<V>,             \
                                 const Epilogue<V>&);                                            \
    template void spmm_merge(const Csr<V, I>&, DenseView<const V>, DenseView<V>,                 \
                             const Epilogue<V>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

TESSEL_CPU_ISA_END
