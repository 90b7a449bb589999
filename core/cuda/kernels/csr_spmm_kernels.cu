// CUDA CSR SpMM kernels on row-major B and C: one warp per row, merge-based with carry-out
// fix-up, and the stand-alone epilogue that follows cuSPARSE.
#include <algorithm>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/kernels/spmm_launch.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/merge_path.hpp"

namespace tessel::cuda {

namespace {

constexpr int warp_size = 32;
constexpr unsigned full_mask = 0xffffffffu;
// Eight warps per block: enough to hide latency, small enough for fine-grained rows.
constexpr int csr_block_threads = 256;
constexpr int csr_warps_per_block = csr_block_threads / warp_size;

// Lanes that share one row's work across columns: the smallest power of two >= min(k, 32).
// The warp's other lane groups split the row's nonzeros, so narrow B keeps all lanes busy.
int column_lanes(size_type k) {
    int w = 1;
    while (w < warp_size && w < k) w *= 2;
    return w;
}

// Sum over entries [begin, end) of a CSR row of val[e] * B[col[e], kk], by a whole warp.
// The warp is `groups` groups of `width` lanes (groups * width == 32); lane = g*width + c
// handles column kk (the caller's k0 + c) for the entries begin+g, begin+g+groups, ... A
// batch of 32 entries is loaded coalesced (one per lane) and broadcast by shuffles. The
// result is valid in lanes 0 .. width-1. Every lane of the warp must call it.
template <typename V, typename I>
__device__ __forceinline__ V warp_row_sum(const I* __restrict__ col, const V* __restrict__ val,
                                          size_type begin, size_type end,
                                          const V* __restrict__ b, size_type ldb, size_type kk,
                                          bool kk_ok, int lane, int width) {
    const int groups = warp_size / width;
    const int g = lane / width;
    V acc = V(0);
    for (size_type e0 = begin; e0 < end; e0 += warp_size) {
        const size_type e = e0 + lane;
        I my_col = 0;
        V my_val = V(0);
        if (e < end) {
            my_col = col[e];
            my_val = val[e];
        }
        const int n = end - e0 < warp_size ? static_cast<int>(end - e0) : warp_size;
#pragma unroll 4
        for (int j0 = 0; j0 < n; j0 += groups) {
            const int j = j0 + g;  // < 32: j0 is a multiple of groups below 32
            const I cj = __shfl_sync(full_mask, my_col, j);
            const V vj = __shfl_sync(full_mask, my_val, j);
            if (j < n && kk_ok) acc += vj * b[static_cast<size_type>(cj) * ldb + kk];
        }
    }
    // Fold the groups' partial sums of the same column onto lanes 0 .. width-1.
    for (int offset = warp_size / 2; offset >= width; offset >>= 1)
        acc += __shfl_down_sync(full_mask, acc, offset);
    return acc;
}

template <typename V, typename I>
__global__ void __launch_bounds__(csr_block_threads, 1)
    warp_row_kernel(size_type rows, const size_type* __restrict__ row_ptr,
                    const I* __restrict__ col, const V* __restrict__ val,
                    const V* __restrict__ b, size_type ldb, V* __restrict__ c, size_type ldc,
                    size_type k, int width, Epilogue<V> ep) {
    const size_type row =
        (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / warp_size;
    if (row >= rows) return;  // the whole warp leaves together
    const int lane = threadIdx.x % warp_size;
    const size_type begin = row_ptr[row], end = row_ptr[row + 1];
    for (size_type k0 = 0; k0 < k; k0 += width) {
        const size_type kk = k0 + lane % width;
        const bool kk_ok = kk < k;
        const V sum = warp_row_sum(col, val, begin, end, b, ldb, kk, kk_ok, lane, width);
        if (lane < width && kk_ok) c[row * ldc + kk] = ep.apply(sum, c[row * ldc + kk]);
    }
}

// One warp per part of the merge path (rows + nonzeros, per_part items each). Rows that start
// and end in the part are written with the epilogue. A row that started in an earlier part
// leaves its last partial sum in the part's head (C keeps its old value for beta); the partial
// sum of a row that continues into the next part goes to the part's carry-out.
template <typename V, typename I>
__global__ void __launch_bounds__(csr_block_threads, 1)
    merge_kernel(size_type rows, size_type nnz, const size_type* __restrict__ row_ptr,
                 const I* __restrict__ col, const V* __restrict__ val, const V* __restrict__ b,
                 size_type ldb, V* __restrict__ c, size_type ldc, size_type k, int width,
                 size_type parts, size_type per_part, V* __restrict__ carry,
                 size_type* __restrict__ carry_row, V* __restrict__ head, Epilogue<V> ep) {
    const size_type part =
        (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / warp_size;
    if (part >= parts) return;
    const int lane = threadIdx.x % warp_size;
    const size_type total = rows + nnz;
    const size_type d0 = part * per_part < total ? part * per_part : total;
    const size_type d1 = d0 + per_part < total ? d0 + per_part : total;
    // Every lane searches the same path: uniform, and the loads are broadcasts.
    const MergeCoord from = merge_path_search(d0, row_ptr + 1, rows, nnz);
    const MergeCoord to = merge_path_search(d1, row_ptr + 1, rows, nnz);

    for (size_type i = from.row; i < to.row; ++i) {
        const size_type start = row_ptr[i];
        const bool started_before = i == from.row && from.nz > start;
        const size_type begin = started_before ? from.nz : start;
        const size_type end = row_ptr[i + 1];
        for (size_type k0 = 0; k0 < k; k0 += width) {
            const size_type kk = k0 + lane % width;
            const bool kk_ok = kk < k;
            const V sum = warp_row_sum(col, val, begin, end, b, ldb, kk, kk_ok, lane, width);
            if (lane < width && kk_ok) {
                if (started_before)
                    head[part * k + kk] = sum;
                else
                    c[i * ldc + kk] = ep.apply(sum, c[i * ldc + kk]);
            }
        }
    }
    size_type carried = -1;
    if (to.row < rows) {
        const size_type start = row_ptr[to.row];
        const size_type begin = from.nz > start ? from.nz : start;
        if (to.nz > begin) {
            carried = to.row;
            for (size_type k0 = 0; k0 < k; k0 += width) {
                const size_type kk = k0 + lane % width;
                const bool kk_ok = kk < k;
                const V sum =
                    warp_row_sum(col, val, begin, to.nz, b, ldb, kk, kk_ok, lane, width);
                if (lane < width && kk_ok) carry[part * k + kk] = sum;
            }
        }
    }
    if (lane == 0) carry_row[part] = carried;
}

// One warp per part: the first part carrying a row adds the carry-outs of all parts that
// carry it (consecutive, in order) to the head of the part that ends it (the next one), then
// applies the epilogue with the row's old value.
template <typename V>
__global__ void __launch_bounds__(csr_block_threads, 1)
    merge_fixup_kernel(size_type parts, const size_type* __restrict__ carry_row,
                       const V* __restrict__ carry, const V* __restrict__ head, V* __restrict__ c,
                       size_type ldc, size_type k, Epilogue<V> ep) {
    const size_type part =
        (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / warp_size;
    if (part >= parts) return;
    const size_type row = carry_row[part];
    if (row < 0 || (part > 0 && carry_row[part - 1] == row)) return;
    const int lane = threadIdx.x % warp_size;
    size_type ends = part;  // the part after the last one carrying the row ends it
    while (ends < parts && carry_row[ends] == row) ++ends;
    for (size_type kk = lane; kk < k; kk += warp_size) {
        V sum = head[ends * k + kk];
        for (size_type q = part; q < ends; ++q) sum += carry[q * k + kk];
        c[row * ldc + kk] = ep.apply(sum, c[row * ldc + kk]);
    }
}

template <typename V>
__global__ void epilogue_kernel(V* __restrict__ c, size_type rows, size_type cols,
                                size_type ldc, Epilogue<V> ep, bool from_zero) {
    const size_type count = rows * cols;
    const size_type stride = static_cast<size_type>(gridDim.x) * blockDim.x;
    for (size_type t = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; t < count;
         t += stride) {
        const size_type i = t / cols, j = t - i * cols;
        V& entry = c[i * ldc + j];
        entry = from_zero ? ep.apply(V(0), entry) : ep.apply(entry, entry);
    }
}

// Blocks for `warps` warps of csr_block_threads-thread blocks (grid.x allows 2^31 - 1).
unsigned blocks_for_warps(size_type warps) {
    return static_cast<unsigned>((warps + csr_warps_per_block - 1) / csr_warps_per_block);
}

}  // namespace

namespace detail {

template <typename V>
void launch_epilogue(V* c, size_type rows, size_type cols, size_type ldc, const Epilogue<V>& ep,
                     bool from_zero, cudaStream_t stream) {
    if (rows == 0 || cols == 0 || (ep.is_identity() && !from_zero)) return;
    if (!from_zero && ep.reads_output())
        TESSEL_INVALID_INPUT("epilogue", 0, "beta needs C's old value, which a separate pass no longer has");
    const size_type count = rows * cols;
    const size_type wanted = (count + 255) / 256;
    // A grid-stride loop: a few waves of blocks are enough for an element-wise pass.
    const unsigned blocks = static_cast<unsigned>(std::min<size_type>(wanted, 65536));
    TESSEL_LAUNCH(blocks, 256, 0, stream, epilogue_kernel<V>)(c, rows, cols, ldc, ep, from_zero);
    TESSEL_CUDA_CHECK_LAUNCH();
}

}  // namespace detail

namespace device {

template <typename V, typename I>
void spmm_warp_row(const DeviceCsr<V, I>& a, InputView<V> b, DenseView<V> c,
                   const Epilogue<V>& ep, cudaStream_t stream) {
    detail::check_spmm_shapes("cuda::spmm_warp_row", a.rows(), a.cols(), b, c);
    const size_type rows = a.rows(), k = b.cols;
    if (rows == 0 || k == 0) return;
    TESSEL_LAUNCH(blocks_for_warps(rows), csr_block_threads, 0, stream, warp_row_kernel<V, I>)(
        rows, a.row_ptr(), a.col_idx(), a.values(), b.data, b.ld, c.data, c.ld, k,
        column_lanes(k), ep);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V, typename I>
void spmm_merge(const DeviceCsr<V, I>& a, InputView<V> b, DenseView<V> c,
                const Epilogue<V>& ep, cudaStream_t stream) {
    detail::check_spmm_shapes("cuda::spmm_merge", a.rows(), a.cols(), b, c);
    const size_type rows = a.rows(), nnz = a.nnz(), k = b.cols;
    if (rows == 0 || k == 0) return;
    const size_type total = rows + nnz;
    // At least 32 merge items per warp; at most four waves of resident warps; and carry-outs
    // (one row of k values per part) within 256 MiB.
    const detail::DeviceLimits limits = detail::current_device_limits();
    const size_type resident_warps = static_cast<size_type>(limits.sm_count) * 64 * 4;
    const size_type carry_budget = (size_type(256) << 20) / (k * size_type(sizeof(V)));
    const size_type max_parts = std::max<size_type>(1, std::min(resident_warps, carry_budget));
    size_type parts = std::clamp<size_type>((total + 31) / 32, 1, max_parts);
    const size_type per_part = (total + parts - 1) / parts;
    parts = (total + per_part - 1) / per_part;  // drop parts that would be empty

    detail::StreamScratch carry(static_cast<std::size_t>(parts * k) * sizeof(V), stream);
    detail::StreamScratch carry_row(static_cast<std::size_t>(parts) * sizeof(size_type), stream);
    detail::StreamScratch head(static_cast<std::size_t>(parts * k) * sizeof(V), stream);
    auto* carry_values = static_cast<V*>(carry.get());
    auto* carry_rows = static_cast<size_type*>(carry_row.get());
    TESSEL_LAUNCH(blocks_for_warps(parts), csr_block_threads, 0, stream, merge_kernel<V, I>)(
        rows, nnz, a.row_ptr(), a.col_idx(), a.values(), b.data, b.ld, c.data, c.ld, k,
        column_lanes(k), parts, per_part, carry_values, carry_rows, static_cast<V*>(head.get()), ep);
    TESSEL_CUDA_CHECK_LAUNCH();
    TESSEL_LAUNCH(blocks_for_warps(parts), csr_block_threads, 0, stream, merge_fixup_kernel<V>)(
        parts, carry_rows, carry_values, static_cast<const V*>(head.get()), c.data, c.ld, k, ep);
    TESSEL_CUDA_CHECK_LAUNCH();
}

template <typename V>
void apply_epilogue(DenseView<V> c, const Epilogue<V>& ep, cudaStream_t stream) {
    TESSEL_ENSURE_DIMS(c.layout == Layout::row_major, "cuda::apply_epilogue: C must be row-major");
    detail::launch_epilogue(c.data, c.rows, c.cols, c.ld, ep, false, stream);
}

}  // namespace device

#define TESSEL_INSTANTIATE(V, I)                                                              \
    template void device::spmm_warp_row(const DeviceCsr<V, I>&, DenseView<const V>,           \
                                        DenseView<V>, const Epilogue<V>&, cudaStream_t);      \
    template void device::spmm_merge(const DeviceCsr<V, I>&, DenseView<const V>, DenseView<V>, \
                                     const Epilogue<V>&, cudaStream_t);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

template void detail::launch_epilogue(float*, size_type, size_type, size_type,
                                      const Epilogue<float>&, bool, cudaStream_t);
template void detail::launch_epilogue(double*, size_type, size_type, size_type,
                                      const Epilogue<double>&, bool, cudaStream_t);
template void device::apply_epilogue(DenseView<float>, const Epilogue<float>&, cudaStream_t);
template void device::apply_epilogue(DenseView<double>, const Epilogue<double>&, cudaStream_t);

}  // namespace tessel::cuda
