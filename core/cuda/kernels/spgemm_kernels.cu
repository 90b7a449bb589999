// CUDA SpGEMM in two phases (Deveci et al. 2018): one warp per row of C (Thread-Sequential:
// the warp walks A's row, its lanes share each row of B), hash maps with the first level in
// shared memory and the second in global-memory chunks of a memory pool; and cuSPARSE
// cusparseSpGEMM as the baseline. Host-level entry points: copy in, run, copy out.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/entry_points.hpp"
#include "core/cuda/kernels/spgemm_kernels.cuh"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spgemm.hpp"
#include "core/kernels/spgemm_checks.hpp"

namespace tessel::cuda {

namespace {

using namespace spgemm_device;

constexpr int block_threads = warps_per_block * warp_size;

// ---- kernels ---------------------------------------------------------------------------

// Sums of `value` over the lanes of a warp.
template <typename T>
__device__ __forceinline__ T warp_sum(T value) {
    for (int offset = warp_size / 2; offset > 0; offset /= 2)
        value += __shfl_down_sync(0xffffffffu, value, offset);
    return __shfl_sync(0xffffffffu, value, 0);
}

struct PoolView {
    std::int64_t chunk_slots = 0;  // slots per chunk (0: no second level)
    int* locks = nullptr;
    int chunks = 0;
};

// Sets up a warp's map for a row with at most `bound` keys: level 1 cleared, level 2 taken
// from the pool and cleared when the row may overflow level 1. Values (when V is not void)
// are zeroed alongside.
template <typename I, typename Payload>
__device__ WarpHash<I> begin_row(SharedPtr<I> l1_keys, SharedPtr<Payload> l1_values, int l1_slots,
                                 SharedPtr<int> used, SharedPtr<int> closed, I* pool_keys, Payload* pool_values,
                                 const PoolView& pool, std::int64_t bound, int lane, int hint) {
    WarpHash<I> map;
    const int want = ceil_log2(2 * bound > warp_size ? 2 * bound : warp_size);
    const int most = ceil_log2(l1_slots);
    map.l1_bits = want < most ? want : most;
    const int window = 1 << map.l1_bits;
    map.l1_limit = window / 2;
    map.l1 = l1_keys;
    map.l1_used = used;
    map.l1_closed = closed;
    for (int s = lane; s < window; s += warp_size) {
        l1_keys[s] = I(-1);
        if constexpr (!std::is_void_v<Payload>) l1_values[s] = Payload(0);
    }
    if (lane == 0) {
        *used = 0;
        *closed = 0;
    }
    map.l2 = nullptr;
    map.l2_bits = 0;
    map.chunk = -1;
    if (bound > map.l1_limit && pool.chunks > 0) {
        int chunk = 0;
        if (lane == 0) chunk = acquire_chunk(pool.locks, pool.chunks, hint);
        chunk = __shfl_sync(0xffffffffu, chunk, 0);
        map.chunk = chunk;
        const int need = ceil_log2(2 * bound), room = ceil_log2(pool.chunk_slots);
        map.l2_bits = need < room ? need : room;
        map.l2 = pool_keys + std::int64_t(chunk) * pool.chunk_slots;
        const std::int64_t window2 = std::int64_t(1) << map.l2_bits;
        for (std::int64_t s = lane; s < window2; s += warp_size) {
            map.l2[s] = I(-1);
            if constexpr (!std::is_void_v<Payload>)
                pool_values[std::int64_t(chunk) * pool.chunk_slots + s] = Payload(0);
        }
    }
    __syncwarp();
    return map;
}

__device__ __forceinline__ void end_row(const PoolView& pool, int chunk, int lane) {
    __syncwarp();
    if (chunk >= 0 && lane == 0) release_chunk(pool.locks, chunk);
    __syncwarp();
}

// Symbolic phase: the number of distinct columns of every row of A·B.
template <typename I>
__global__ void __launch_bounds__(block_threads)
    symbolic_kernel(std::int64_t m, const std::int64_t* __restrict__ arp, const I* __restrict__ acol,
                    const std::int64_t* __restrict__ brp, const I* __restrict__ bcol,
                    const std::int64_t* __restrict__ bound, int l1_slots, I* pool_keys,
                    PoolView pool, std::int64_t* __restrict__ row_nnz) {
    TESSEL_DYNAMIC_SHARED(unsigned char, shared);
    TESSEL_SHARED_ARRAY(int, used, warps_per_block);
    TESSEL_SHARED_ARRAY(int, closed, warps_per_block);
    const int lane = threadIdx.x % warp_size, w = threadIdx.x / warp_size;
    const SharedPtr<I> keys = pointer_cast<I>(shared) + std::int64_t(w) * l1_slots;
    const std::int64_t first = (std::int64_t(blockIdx.x) * block_threads + threadIdx.x) / warp_size;
    const std::int64_t stride = std::int64_t(gridDim.x) * warps_per_block;
    for (std::int64_t i = first; i < m; i += stride) {
        const WarpHash<I> map =
            begin_row<I, void>(keys, nullptr, l1_slots, used + w, closed + w, pool_keys, nullptr,
                               pool, bound[i], lane, int(first));
        std::int64_t fresh_count = 0;
        for (std::int64_t e = arp[i]; e < arp[i + 1]; ++e) {
            const I j = acol[e];
            for (std::int64_t f = brp[j] + lane; f < brp[j + 1]; f += warp_size) {
                bool fresh;
                map.insert(bcol[f], fresh);  // never no_room: the bound is an upper bound
                fresh_count += fresh;
            }
            __syncwarp();  // rows of B one after another: concurrent keys are distinct
        }
        const std::int64_t total = warp_sum(fresh_count);
        if (lane == 0) row_nnz[i] = total;
        end_row(pool, map.chunk, lane);
    }
}

// Numeric phase, fresh: columns and values of every row written at row_ptr[i] (unsorted).
template <typename V, typename I>
__global__ void __launch_bounds__(block_threads)
    numeric_kernel(std::int64_t m, const std::int64_t* __restrict__ arp, const I* __restrict__ acol,
                   const V* __restrict__ aval, const std::int64_t* __restrict__ brp,
                   const I* __restrict__ bcol, const V* __restrict__ bval,
                   const std::int64_t* __restrict__ crp, int l1_slots, I* pool_keys,
                   V* pool_values, PoolView pool, I* __restrict__ ccol, V* __restrict__ cval,
                   int* mismatch) {
    TESSEL_DYNAMIC_SHARED(unsigned char, shared);
    TESSEL_SHARED_ARRAY(int, used, warps_per_block);
    TESSEL_SHARED_ARRAY(int, closed, warps_per_block);
    TESSEL_SHARED_ARRAY(int, written, warps_per_block);
    const int lane = threadIdx.x % warp_size, w = threadIdx.x / warp_size;
    const SharedPtr<V> values = pointer_cast<V>(shared) + std::int64_t(w) * l1_slots;
    const SharedPtr<I> keys = pointer_cast<I>(pointer_cast<V>(shared) + std::int64_t(warps_per_block) * l1_slots) +
                              std::int64_t(w) * l1_slots;
    const std::int64_t first = (std::int64_t(blockIdx.x) * block_threads + threadIdx.x) / warp_size;
    const std::int64_t stride = std::int64_t(gridDim.x) * warps_per_block;
    for (std::int64_t i = first; i < m; i += stride) {
        const std::int64_t base = crp[i], cap = crp[i + 1] - crp[i];
        const WarpHash<I> map = begin_row<I, V>(keys, values, l1_slots, used + w, closed + w,
                                                pool_keys, pool_values, pool, cap, lane,
                                                int(first));
        const int chunk = map.chunk;
        if (lane == 0) written[w] = 0;
        __syncwarp();
        V* l2_values = chunk >= 0 ? pool_values + std::int64_t(chunk) * pool.chunk_slots : nullptr;
        for (std::int64_t e = arp[i]; e < arp[i + 1]; ++e) {
            const I j = acol[e];
            const V av = aval[e];
            for (std::int64_t f = brp[j] + lane; f < brp[j + 1]; f += warp_size) {
                bool fresh;
                const std::int64_t slot = map.insert(bcol[f], fresh);
                if (slot >= 0)
                    atomicAdd(values + slot, av * bval[f]);
                else if (slot != no_room)
                    atomicAdd(l2_values + (-1 - slot), av * bval[f]);
                else
                    atomicExch(mismatch, 1);
            }
            __syncwarp();
        }
        // Write the entries out in slot order, each lane taking its places with an atomic.
        const int window = 1 << map.l1_bits;
        for (int s = lane; s < window; s += warp_size) {
            const I key = keys[s];
            if (key != I(-1)) {
                const int pos = atomicAdd(written + w, 1);
                if (pos < cap) {
                    ccol[base + pos] = key;
                    cval[base + pos] = values[s];
                }
            }
        }
        if (map.l2 != nullptr) {
            const std::int64_t window2 = std::int64_t(1) << map.l2_bits;
            for (std::int64_t s = lane; s < window2; s += warp_size) {
                const I key = map.l2[s];
                if (key != I(-1)) {
                    const int pos = atomicAdd(written + w, 1);
                    if (pos < cap) {
                        ccol[base + pos] = key;
                        cval[base + pos] = l2_values[s];
                    }
                }
            }
        }
        __syncwarp();
        if (lane == 0 && written[w] != cap) atomicExch(mismatch, 1);
        end_row(pool, chunk, lane);
    }
}

// Numeric phase, reused: C's columns are known; the map holds each column's place in the
// row and the products are added there (C's values zeroed beforehand).
template <typename V, typename I>
__global__ void __launch_bounds__(block_threads)
    reuse_kernel(std::int64_t m, const std::int64_t* __restrict__ arp, const I* __restrict__ acol,
                 const V* __restrict__ aval, const std::int64_t* __restrict__ brp,
                 const I* __restrict__ bcol, const V* __restrict__ bval,
                 const std::int64_t* __restrict__ crp, const I* __restrict__ ccol, int l1_slots,
                 I* pool_keys, int* pool_places, PoolView pool, V* __restrict__ cval,
                 int* mismatch) {
    TESSEL_DYNAMIC_SHARED(unsigned char, shared);
    TESSEL_SHARED_ARRAY(int, used, warps_per_block);
    TESSEL_SHARED_ARRAY(int, closed, warps_per_block);
    const int lane = threadIdx.x % warp_size, w = threadIdx.x / warp_size;
    const SharedPtr<int> places = pointer_cast<int>(shared) + std::int64_t(w) * l1_slots;
    const SharedPtr<I> keys = pointer_cast<I>(pointer_cast<int>(shared) + std::int64_t(warps_per_block) * l1_slots) +
                              std::int64_t(w) * l1_slots;
    const std::int64_t first = (std::int64_t(blockIdx.x) * block_threads + threadIdx.x) / warp_size;
    const std::int64_t stride = std::int64_t(gridDim.x) * warps_per_block;
    for (std::int64_t i = first; i < m; i += stride) {
        const std::int64_t base = crp[i], cap = crp[i + 1] - crp[i];
        const WarpHash<I> map = begin_row<I, int>(keys, places, l1_slots, used + w, closed + w,
                                                  pool_keys, pool_places, pool, cap, lane,
                                                  int(first));
        const int chunk = map.chunk;
        int* l2_places = chunk >= 0 ? pool_places + std::int64_t(chunk) * pool.chunk_slots : nullptr;
        bool inside = true;
        for (std::int64_t t = lane; t < cap; t += warp_size) {
            bool fresh;
            const std::int64_t slot = map.insert(ccol[base + t], fresh);
            inside &= fresh;
            if (slot >= 0)
                places[slot] = int(t);
            else if (slot != no_room)
                l2_places[-1 - slot] = int(t);
        }
        __syncwarp();
        for (std::int64_t e = arp[i]; e < arp[i + 1]; ++e) {
            const I j = acol[e];
            const V av = aval[e];
            for (std::int64_t f = brp[j] + lane; f < brp[j + 1]; f += warp_size) {
                const std::int64_t slot = map.find(bcol[f]);
                if (slot == no_room) {
                    inside = false;
                    continue;
                }
                const int t = slot >= 0 ? places[slot] : l2_places[-1 - slot];
                atomicAdd(cval + base + t, av * bval[f]);
            }
        }
        if (!__all_sync(0xffffffffu, inside) && lane == 0) atomicExch(mismatch, 1);
        end_row(pool, chunk, lane);
    }
}

// ---- host side -------------------------------------------------------------------------

// A CSR matrix on the device (values only when asked for).
template <typename V, typename I>
struct SpgemmDeviceCsr {
    DeviceBuffer<std::int64_t> row_ptr;
    DeviceBuffer<I> col;
    DeviceBuffer<V> val;
    SpgemmDeviceCsr(const Csr<V, I>& m, bool values)
        : row_ptr(m.row_ptr().data(), m.rows() + 1),
          col(m.col_idx().data(), m.nnz()),
          val(values ? DeviceBuffer<V>(m.values().data(), m.nnz()) : DeviceBuffer<V>()) {}
};

int sm_count() {
    int device = 0, count = 0;
    TESSEL_CUDA_CHECK(cudaGetDevice(&device));
    TESSEL_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
}

// Blocks for a grid-stride loop of one warp per row: enough to fill the device.
int grid_blocks(size_type rows) {
    const size_type wanted = (rows + warps_per_block - 1) / warps_per_block;
    return int(std::max<size_type>(1, std::min<size_type>(wanted, size_type(sm_count()) * 8)));
}

size_type pow2_at_least(size_type n) {
    return size_type(std::bit_ceil(std::uint64_t(std::max<size_type>(n, 1))));
}

// First-level slots per warp: what fits in l1_bytes_per_warp, at most options.hash_l1_slots.
size_type l1_slots_for(size_type slot_bytes, size_type wanted) {
    const size_type fit = std::bit_floor(std::uint64_t(l1_bytes_per_warp / slot_bytes));
    const size_type asked = size_type(std::bit_floor(std::uint64_t(std::max<size_type>(wanted, 1))));
    return std::max<size_type>(warp_size, std::min(fit, asked));
}

// The memory pool's chunks: as many as warps can run at once, within a quarter of the free
// device memory, at least one.
struct DevicePool {
    PoolView view;
    DeviceBuffer<int> locks;
    DevicePool(size_type longest, size_type l1_limit, size_type slot_bytes, int blocks) {
        if (longest <= l1_limit) return;
        view.chunk_slots = pow2_at_least(2 * longest);
        std::size_t free_bytes = 0, total = 0;
        TESSEL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
        const size_type chunk_bytes = view.chunk_slots * slot_bytes;
        const size_type fit = size_type(free_bytes / 4) / std::max<size_type>(1, chunk_bytes);
        view.chunks = int(std::max<size_type>(1, std::min<size_type>(size_type(blocks) * warps_per_block, fit)));
        locks = DeviceBuffer<int>(view.chunks);
        locks.fill_zero();
        view.locks = locks.data();
    }
    size_type slots() const { return view.chunk_slots * view.chunks; }
};

template <typename V, typename I>
SpgemmPlan symbolic_on_device(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmDeviceCsr<V, I>& da,
                              const SpgemmDeviceCsr<V, I>& db, const SpgemmOptions& options) {
    tessel::detail::check_spgemm_operands(a, b, "cuda::spgemm_symbolic");
    SpgemmPlan plan;
    plan.backend = Backend::cuda;
    plan.rows = a.rows();
    plan.inner = a.cols();
    plan.cols = b.cols();
    plan.a_nnz = a.nnz();
    plan.b_nnz = b.nnz();
    plan.sort_columns = options.sort_columns;
    plan.symbolic_accumulator = plan.numeric_accumulator = SpgemmAccumulator::cuda_hash;
    const size_type m = a.rows(), k = b.cols();

    // Row flops on the host (one pass over A), the bound of every row's size.
    std::vector<std::int64_t> bound(static_cast<std::size_t>(m));
    for (size_type i = 0; i < m; ++i) {
        size_type f = 0;
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e)
            f += b.row_nnz(a.col_idx()[e]);
        plan.flops += f;
        plan.max_row_flops = std::max(plan.max_row_flops, f);
        bound[i] = std::min(f, k);
    }
    plan.row_ptr.assign(static_cast<std::size_t>(m) + 1, 0);
    if (m > 0) {
        const size_type l1_slots = l1_slots_for(sizeof(I), options.hash_l1_slots);
        const int blocks = grid_blocks(m);
        DevicePool pool(std::min(plan.max_row_flops, k), l1_slots / 2, sizeof(I), blocks);
        DeviceBuffer<I> pool_keys(pool.slots());
        DeviceBuffer<std::int64_t> d_bound(bound.data(), m), row_nnz(m);
        const std::size_t shared = std::size_t(warps_per_block) * l1_slots * sizeof(I);
        TESSEL_LAUNCH(blocks, block_threads, shared, nullptr, symbolic_kernel<I>)(
            m, da.row_ptr.data(), da.col.data(), db.row_ptr.data(), db.col.data(), d_bound.data(),
            int(l1_slots), pool_keys.data(), pool.view, row_nnz.data());
        TESSEL_CUDA_CHECK_LAUNCH();
        row_nnz.download(plan.row_ptr.data() + 1, m);
    }
    for (size_type i = 0; i < m; ++i) {
        plan.max_row_nnz = std::max(plan.max_row_nnz, plan.row_ptr[i + 1]);
        plan.row_ptr[i + 1] += plan.row_ptr[i];
    }
    plan.hash_l1_slots = l1_slots_for(sizeof(I) + sizeof(V), options.hash_l1_slots);
    plan.hash_l2_slots = plan.max_row_nnz > plan.hash_l1_slots / 2 ? pow2_at_least(2 * plan.max_row_nnz) : 0;
    plan.scratch_bytes = plan.hash_l1_slots * size_type(sizeof(I) + sizeof(V));
    plan.reason = "cuda: one warp per row, first hash level in shared memory (" +
                  std::to_string(plan.hash_l1_slots) + " slots per warp), second level in global "
                  "memory chunks of " + std::to_string(plan.hash_l2_slots) + " slots";
    return plan;
}

template <typename V, typename I>
void numeric_on_device(const SpgemmPlan& plan, const Csr<V, I>& a, const Csr<V, I>& b,
                       const SpgemmDeviceCsr<V, I>& da, const SpgemmDeviceCsr<V, I>& db, Csr<V, I>& c) {
    tessel::detail::check_spgemm_plan(plan, a, b, "cuda::spgemm_numeric");
    const size_type m = plan.rows, nnz = plan.nnz();
    const bool reuse = c.rows() == plan.rows && c.cols() == plan.cols && c.row_ptr() == plan.row_ptr;
    DeviceBuffer<std::int64_t> crp(plan.row_ptr.data(), m + 1);
    DeviceBuffer<int> mismatch(1);
    mismatch.fill_zero();
    const int blocks = grid_blocks(m);
    if (reuse) {
        DeviceBuffer<I> ccol(c.col_idx().data(), nnz);
        DeviceBuffer<V> cval(nnz);
        cval.fill_zero();
        const size_type l1_slots = l1_slots_for(sizeof(I) + sizeof(int), plan.hash_l1_slots);
        DevicePool pool(plan.max_row_nnz, l1_slots / 2, sizeof(I) + sizeof(int), blocks);
        DeviceBuffer<I> pool_keys(pool.slots());
        DeviceBuffer<int> pool_places(pool.slots());
        const std::size_t shared = std::size_t(warps_per_block) * l1_slots * (sizeof(I) + sizeof(int));
        if (m > 0) {
            TESSEL_LAUNCH(blocks, block_threads, shared, nullptr, reuse_kernel<V, I>)(
                m, da.row_ptr.data(), da.col.data(), da.val.data(), db.row_ptr.data(),
                db.col.data(), db.val.data(), crp.data(), ccol.data(), int(l1_slots),
                pool_keys.data(), pool_places.data(), pool.view, cval.data(), mismatch.data());
            TESSEL_CUDA_CHECK_LAUNCH();
        }
        int bad = 0;
        mismatch.download(&bad, 1);
        if (bad)
            TESSEL_INVALID_INPUT("cuda::spgemm_numeric", 0,
                                 "C has the plan's row pointers but not the pattern of A·B");
        cval.download(c.values_mut().data(), nnz);
        return;
    }
    DeviceBuffer<I> ccol(nnz);
    DeviceBuffer<V> cval(nnz);
    const size_type l1_slots = l1_slots_for(sizeof(I) + sizeof(V), plan.hash_l1_slots);
    DevicePool pool(plan.max_row_nnz, l1_slots / 2, sizeof(I) + sizeof(V), blocks);
    DeviceBuffer<I> pool_keys(pool.slots());
    DeviceBuffer<V> pool_values(pool.slots());
    const std::size_t shared = std::size_t(warps_per_block) * l1_slots * (sizeof(I) + sizeof(V));
    if (m > 0) {
        TESSEL_LAUNCH(blocks, block_threads, shared, nullptr, numeric_kernel<V, I>)(
            m, da.row_ptr.data(), da.col.data(), da.val.data(), db.row_ptr.data(), db.col.data(),
            db.val.data(), crp.data(), int(l1_slots), pool_keys.data(), pool_values.data(),
            pool.view, ccol.data(), cval.data(), mismatch.data());
        TESSEL_CUDA_CHECK_LAUNCH();
    }
    int bad = 0;
    mismatch.download(&bad, 1);
    if (bad)
        TESSEL_INVALID_INPUT("cuda::spgemm_numeric", 0,
                             "the rows of A·B do not have the sizes of the plan (did the pattern "
                             "of A or B change?)");
    if (plan.sort_columns && nnz > 0) {
        // Sort every row's (column, value) pairs: CUB's segmented sort over C's row pointers.
        DeviceBuffer<I> sorted_col(nnz);
        DeviceBuffer<V> sorted_val(nnz);
        std::size_t temp_bytes = 0;
        TESSEL_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
            nullptr, temp_bytes, ccol.data(), sorted_col.data(), cval.data(), sorted_val.data(),
            nnz, m, crp.data(), crp.data() + 1));
        DeviceBuffer<unsigned char> temp(static_cast<size_type>(std::max<std::size_t>(temp_bytes, 1)));
        TESSEL_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
            temp.data(), temp_bytes, ccol.data(), sorted_col.data(), cval.data(), sorted_val.data(),
            nnz, m, crp.data(), crp.data() + 1));
        ccol = std::move(sorted_col);
        cval = std::move(sorted_val);
    }
    std::vector<I> col(static_cast<std::size_t>(nnz));
    std::vector<V> val(static_cast<std::size_t>(nnz));
    ccol.download(col.data(), nnz);
    cval.download(val.data(), nnz);
    c = Csr<V, I>(plan.rows, plan.cols, plan.row_ptr, std::move(col), std::move(val), "spgemm");
}

// cuSPARSE takes 32-bit indices for SpGEMM: narrow them, or say why not.
template <typename I>
std::vector<std::int32_t> narrow(const std::vector<I>& x, const char* what) {
    std::vector<std::int32_t> out(x.size());
    for (std::size_t e = 0; e < x.size(); ++e) {
        if (x[e] > std::numeric_limits<std::int32_t>::max())
            TESSEL_INVALID_INPUT("cuda::spgemm_cusparse", 0,
                                 std::string(what) + " needs 64-bit indices, which "
                                                     "cusparseSpGEMM does not take");
        out[e] = static_cast<std::int32_t>(x[e]);
    }
    return out;
}


}  // namespace

template <typename V, typename I>
SpgemmPlan spgemm_symbolic(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    tessel::detail::check_spgemm_operands(a, b, "cuda::spgemm_symbolic");
    const SpgemmDeviceCsr<V, I> da(a, false), db(b, false);
    return symbolic_on_device(a, b, da, db, options);
}

template <typename V, typename I>
void spgemm_numeric(const SpgemmPlan& plan, const Csr<V, I>& a, const Csr<V, I>& b, Csr<V, I>& c) {
    tessel::detail::check_spgemm_plan(plan, a, b, "cuda::spgemm_numeric");
    const SpgemmDeviceCsr<V, I> da(a, true), db(b, true);
    numeric_on_device(plan, a, b, da, db, c);
}

template <typename V, typename I>
Csr<V, I> spgemm(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    tessel::detail::check_spgemm_operands(a, b, "cuda::spgemm");
    const SpgemmDeviceCsr<V, I> da(a, true), db(b, true);
    const SpgemmPlan plan = symbolic_on_device(a, b, da, db, options);
    Csr<V, I> c;
    numeric_on_device(plan, a, b, da, db, c);
    return c;
}

template <typename V, typename I>
Csr<V, I> spgemm_cusparse(const Csr<V, I>& a, const Csr<V, I>& b) {
    tessel::detail::check_spgemm_operands(a, b, "cuda::spgemm_cusparse");
    const size_type m = a.rows(), n = a.cols(), k = b.cols();
    if (m > std::numeric_limits<std::int32_t>::max() || n > std::numeric_limits<std::int32_t>::max() ||
        k > std::numeric_limits<std::int32_t>::max())
        TESSEL_INVALID_INPUT("cuda::spgemm_cusparse", 0,
                             "the sizes need 64-bit indices, which cusparseSpGEMM does not take");
    const auto arp = narrow(a.row_ptr(), "A's nonzero count");
    const auto brp = narrow(b.row_ptr(), "B's nonzero count");
    const auto acol = narrow(a.col_idx(), "A's columns");
    const auto bcol = narrow(b.col_idx(), "B's columns");
    DeviceBuffer<std::int32_t> d_arp(arp.data(), m + 1), d_acol(acol.data(), a.nnz());
    DeviceBuffer<std::int32_t> d_brp(brp.data(), n + 1), d_bcol(bcol.data(), b.nnz());
    DeviceBuffer<V> d_aval(a.values().data(), a.nnz()), d_bval(b.values().data(), b.nnz());
    DeviceBuffer<std::int32_t> d_crp(m + 1);

    constexpr cudaDataType type = std::is_same_v<V, double> ? CUDA_R_64F : CUDA_R_32F;
    const V alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    CusparseHandle owner;
    const cusparseHandle_t handle = owner.get();
    cusparseSpMatDescr_t ma = nullptr, mb = nullptr, mc = nullptr;
    cusparseSpGEMMDescr_t desc = nullptr;
    // Descriptors are freed on every path out.
    struct Guard {
        cusparseSpMatDescr_t *a, *b, *c;
        cusparseSpGEMMDescr_t* d;
        ~Guard() {
            if (*a) cusparseDestroySpMat(*a);
            if (*b) cusparseDestroySpMat(*b);
            if (*c) cusparseDestroySpMat(*c);
            if (*d) cusparseSpGEMM_destroyDescr(*d);
        }
    } guard{&ma, &mb, &mc, &desc};
    TESSEL_CUSPARSE_CHECK(cusparseCreateCsr(&ma, m, n, a.nnz(), d_arp.data(), d_acol.data(),
                                            d_aval.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, type));
    TESSEL_CUSPARSE_CHECK(cusparseCreateCsr(&mb, n, k, b.nnz(), d_brp.data(), d_bcol.data(),
                                            d_bval.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, type));
    TESSEL_CUSPARSE_CHECK(cusparseCreateCsr(&mc, m, k, 0, d_crp.data(), nullptr, nullptr,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, type));
    TESSEL_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&desc));
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    std::size_t bytes1 = 0, bytes2 = 0;
    TESSEL_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, ma, mb, &beta, mc,
                                                        type, alg, desc, &bytes1, nullptr));
    DeviceBuffer<unsigned char> buffer1(static_cast<size_type>(std::max<std::size_t>(bytes1, 1)));
    TESSEL_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, ma, mb, &beta, mc,
                                                        type, alg, desc, &bytes1, buffer1.data()));
    TESSEL_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, ma, mb, &beta, mc, type,
                                                 alg, desc, &bytes2, nullptr));
    DeviceBuffer<unsigned char> buffer2(static_cast<size_type>(std::max<std::size_t>(bytes2, 1)));
    TESSEL_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, ma, mb, &beta, mc, type,
                                                 alg, desc, &bytes2, buffer2.data()));
    std::int64_t c_rows = 0, c_cols = 0, c_nnz = 0;
    TESSEL_CUSPARSE_CHECK(cusparseSpMatGetSize(mc, &c_rows, &c_cols, &c_nnz));
    DeviceBuffer<std::int32_t> d_ccol(c_nnz);
    DeviceBuffer<V> d_cval(c_nnz);
    TESSEL_CUSPARSE_CHECK(cusparseCsrSetPointers(mc, d_crp.data(), d_ccol.data(), d_cval.data()));
    TESSEL_CUSPARSE_CHECK(cusparseSpGEMM_copy(handle, op, op, &alpha, ma, mb, &beta, mc, type, alg,
                                              desc));
    std::vector<std::int32_t> crp(static_cast<std::size_t>(m) + 1), ccol(static_cast<std::size_t>(c_nnz));
    std::vector<V> val(static_cast<std::size_t>(c_nnz));
    d_crp.download(crp.data(), m + 1);
    d_ccol.download(ccol.data(), c_nnz);
    d_cval.download(val.data(), c_nnz);
    Csr<V, I> c(m, k, std::vector<size_type>(crp.begin(), crp.end()),
                std::vector<I>(ccol.begin(), ccol.end()), std::move(val), "cusparse spgemm");
    if (!c.sorted()) c.sort_columns();
    return c;
}

#define TESSEL_INSTANTIATE(V, I) TESSEL_CUDA_SPGEMM_ENTRY_POINTS(TESSEL_CUDA_INSTANTIATE_ENTRY, V, I)
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda
