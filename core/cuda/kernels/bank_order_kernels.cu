// The bank order's sweep on the device (bank_order.hpp), the host's WarpOrder
// (core/formats/tiled_ell_bank_order.cpp) with one lane per lane: each lane sorts its own
// entries in shared memory (column layout: lane l's j-th at j*32 + l, so the lanes never
// conflict), then the warp takes the smallest head index (a warp reduction), the lanes
// holding it agree on a row from their row bit sets (an OR reduction) and the bank's, each
// lane writes its own column back, and the region keeps the new order only when its
// wavefronts (counted with warp matches) are fewer.
#include <cstring>
#include <type_traits>

#include "core/cuda/kernels/bank_order.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"

namespace tessel::cuda::detail {

namespace {

constexpr int warp_size = 32;
constexpr int max_width = bank_order_max_width;
constexpr int words = max_width / 64;
constexpr unsigned full_mask = 0xffffffffu;
constexpr unsigned no_index = 1u << 16;

template <typename P>
__device__ bool zero_bits(P value) {
    using Bits = std::conditional_t<sizeof(P) == 8, unsigned long long,
                                    std::conditional_t<sizeof(P) == 4, unsigned, unsigned short>>;
    Bits bits;
    memcpy(&bits, &value, sizeof(P));
    return bits == 0;
}

struct Rows {
    unsigned long long w[words];
};

__device__ Rows either(const Rows& a, const Rows& b) {
    Rows c;
#pragma unroll
    for (int i = 0; i < words; ++i) c.w[i] = a.w[i] | b.w[i];
    return c;
}

__device__ int lowest_clear(const Rows& busy, int width) {
#pragma unroll
    for (int i = 0; i < words; ++i)
        if (~busy.w[i]) {
            const int r = i * 64 + __ffsll(static_cast<long long>(~busy.w[i])) - 1;
            return r < width ? r : -1;
        }
    return -1;
}

// The warp-wide collectives of the sweep: one redux.sync each on sm_80 and later (the chain of
// every turn of the sweep held eleven dependent shuffles), shuffles before.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TESSEL_BANK_ORDER_SHUFFLES 1
#endif

__device__ unsigned warp_min(unsigned v) {
#if defined(TESSEL_BANK_ORDER_SHUFFLES)
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
        const unsigned o = __shfl_xor_sync(full_mask, v, d);
        v = o < v ? o : v;
    }
    return v;
#else
    return __reduce_min_sync(full_mask, v);
#endif
}

__device__ Rows warp_or(Rows r) {
#pragma unroll
    for (int i = 0; i < words; ++i) {
#if defined(TESSEL_BANK_ORDER_SHUFFLES)
#pragma unroll
        for (int d = 16; d > 0; d /= 2) r.w[i] |= __shfl_xor_sync(full_mask, r.w[i], d);
#else
        const unsigned lo = __reduce_or_sync(full_mask, static_cast<unsigned>(r.w[i]));
        const unsigned hi = __reduce_or_sync(full_mask, static_cast<unsigned>(r.w[i] >> 32));
        r.w[i] = static_cast<unsigned long long>(hi) << 32 | lo;
#endif
    }
    return r;
}

__device__ Rows shuffle_rows(const Rows& r, int from) {
    Rows o;
#pragma unroll
    for (int i = 0; i < words; ++i) o.w[i] = __shfl_sync(full_mask, r.w[i], from);
    return o;
}

__device__ int warp_max(int v) {
#if defined(TESSEL_BANK_ORDER_SHUFFLES)
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
        const int o = __shfl_xor_sync(full_mask, v, d);
        v = o > v ? o : v;
    }
    return v;
#else
    return __reduce_max_sync(full_mask, v);
#endif
}

// The wavefronts of one slot row, lane l reading `idx`: per phase of `banks` lanes, the most
// distinct indices that share a bank (the host's RowCost). A lane is the first of its index
// when no lane before it in its phase reads the same; the distinct indices of a bank are the
// first lanes of the phase in that bank.
__device__ int row_wavefronts(unsigned idx, int lane, int banks) {
    const int phase = lane / banks;
#if defined(TESSEL_BANK_ORDER_SHUFFLES)
    bool first = true;
    for (int j = 0; j < warp_size; ++j) {
        const unsigned o = __shfl_sync(full_mask, idx, j);
        if (j < lane && j / banks == phase && o == idx) first = false;
    }
    const unsigned firsts = __ballot_sync(full_mask, first);
    int distinct = 0;
    for (int j = 0; j < warp_size; ++j) {
        const unsigned o = __shfl_sync(full_mask, idx, j);
        if ((firsts >> j & 1u) && j / banks == phase && (o & unsigned(banks - 1)) == (idx & unsigned(banks - 1)))
            ++distinct;
    }
#else
    const unsigned phase_lanes = banks == warp_size ? full_mask : 0xffffu << (phase * banks);
    const unsigned same_index = __match_any_sync(full_mask, idx) & phase_lanes;
    const bool first = (same_index & ((1u << lane) - 1u)) == 0;
    const unsigned firsts = __ballot_sync(full_mask, first);
    const unsigned same_bank = __match_any_sync(full_mask, (idx & unsigned(banks - 1)) | unsigned(phase) << 16);
    const int distinct = __popc(same_bank & phase_lanes & firsts);
#endif
    return warp_max(distinct);
}

__device__ long long region_wavefronts(const std::uint16_t* idx, int width, int lane, int banks) {
    long long total = 0;
    for (int m = 0; m < width; ++m) total += row_wavefronts(idx[m * warp_size + lane], lane, banks);
    return total;
}

// A sorted entry: index << 16 | original slot row << 8 | new slot row.
__device__ unsigned key_index(unsigned key) { return key >> 16; }
__device__ int key_slot(unsigned key) { return static_cast<int>(key >> 8 & 0xffu); }
__device__ int key_row(unsigned key) { return static_cast<int>(key & 0xffu); }

// Lane `lane`'s column of the region: padding, then its entries at their slot rows (`new_rows`:
// the sweep's, else the original ones).
template <typename Keys, typename Values, typename P>
__device__ void write_column(std::uint16_t* idx, P* val, Keys keys, Values original, int width, int count, int lane,
                             bool new_rows) {
    for (int j = 0; j < width; ++j) {
        idx[j * warp_size + lane] = 0;
        val[j * warp_size + lane] = P{};
    }
    for (int j = 0; j < count; ++j) {
        const unsigned key = keys[j * warp_size + lane];
        const int row = new_rows ? key_row(key) : key_slot(key);
        idx[row * warp_size + lane] = static_cast<std::uint16_t>(key_index(key));
        val[row * warp_size + lane] = P(original[key_slot(key) * warp_size + lane]);
    }
}

// Each padding slot of the new order (index 0, value bits 0) takes the index of the first lane
// of its phase with an entry in its row, or stays 0 (the host's share_padding).
template <typename P>
__device__ void share_padding(std::uint16_t* idx, const P* val, int width, int lane, int banks) {
    const unsigned phase_mask = banks == warp_size ? full_mask : 0xffffu << ((lane / banks) * banks);
    for (int m = 0; m < width; ++m) {
        const std::uint16_t mine = idx[m * warp_size + lane];
        const bool pad = mine == 0 && zero_bits(val[m * warp_size + lane]);
        const unsigned holders = __ballot_sync(full_mask, !pad) & phase_mask;
        const int first = holders ? __ffs(static_cast<int>(holders)) - 1 : lane;
        const std::uint16_t shared = __shfl_sync(full_mask, mine, first);
        if (pad && holders) idx[m * warp_size + lane] = shared;
    }
}

// One warp per (stage, warp) of 2 .. max_width slot rows. Shared memory holds each lane's
// sorted keys and its values in their original slots (lane l's j-th at j*32 + l); the rows
// where each (phase, bank) is read sit in the registers of lane phase*banks + bank.
template <typename P>
__global__ void bank_order_kernel(const size_type* warpdispl, std::uint16_t* index, P* payload, int banks,
                                  unsigned long long* totals) {
    // Half values are held as 4 bytes: lanes write their own words (the simulator's race check
    // sees 4-byte words; the card would not mind).
    using Held = std::conditional_t<(sizeof(P) < 4), unsigned, P>;
    TESSEL_SHARED_ARRAY(unsigned, keys, max_width * warp_size);
    TESSEL_SHARED_ARRAY(Held, original, max_width * warp_size);
    const size_type m0 = warpdispl[blockIdx.x];
    const int width = static_cast<int>(warpdispl[blockIdx.x + 1] - m0);
    const int lane = threadIdx.x;
    std::uint16_t* idx = index + m0 * warp_size;
    P* val = payload + m0 * warp_size;
    auto at = [lane](int j) { return j * warp_size + lane; };
    const bool reordered = width > 1 && width <= max_width;  // wider regions keep their order
    if (!reordered && !totals) return;  // nothing to count either
    const long long before = region_wavefronts(idx, width, lane, banks);
    long long after = before;
    if (reordered) {
        // The lane's entries (before its trailing padding), insertion-sorted by index (stable).
        int count = width;
        while (count > 0 && idx[at(count - 1)] == 0 && zero_bits(val[at(count - 1)])) --count;
        for (int j = 0; j < count; ++j) {
            original[at(j)] = Held(val[at(j)]);
            const unsigned key = unsigned(idx[at(j)]) << 16 | unsigned(j) << 8;
            int k = j;
            for (; k > 0 && keys[at(k - 1)] > key; --k) keys[at(k)] = keys[at(k - 1)];
            keys[at(k)] = key;
        }
        Rows mine = {}, my_bank = {};  // rows of this lane; rows where (phase, bank) = lane is read
        int head = 0;
        while (true) {
            const unsigned cur = head < count ? key_index(keys[at(head)]) : no_index;
            const unsigned u = warp_min(cur);
            if (u == no_index) break;
            const bool holding = cur == u;
            const unsigned holders = __ballot_sync(full_mask, holding);
            const int bank = static_cast<int>(u) & (banks - 1);
            const Rows none = {};
            const Rows lanes_busy = warp_or(holding ? mine : none);
            // The bank's rows in each phase the holders are in.
            Rows bank_busy = {};
            for (int p = 0; p < warp_size / banks; ++p) {
                const Rows r = shuffle_rows(my_bank, p * banks + bank);
                const unsigned in_phase = banks == warp_size ? full_mask : 0xffffu << (p * banks);
                if (holders & in_phase) bank_busy = either(bank_busy, r);
            }
            int row = lowest_clear(either(lanes_busy, bank_busy), width);
            if (row < 0) row = lowest_clear(lanes_busy, width);
            if (row >= 0) {
                if (holding) {
                    mine.w[row / 64] |= 1ull << (row % 64);
                    keys[at(head)] = keys[at(head)] | unsigned(row);
                }
                // Each (phase, bank) lane whose phase holds u marks the row.
                const int my_phase = lane / banks;
                const unsigned phase_mask = banks == warp_size ? full_mask : 0xffffu << (my_phase * banks);
                if (lane % banks == bank && (holders & phase_mask)) my_bank.w[row / 64] |= 1ull << (row % 64);
            } else {
                // Lane by lane, in ascending order: each sees the banks the ones before it took.
                for (unsigned h = holders; h; h &= h - 1) {
                    const int l = __ffs(static_cast<int>(h)) - 1;
                    const int slot = (l / banks) * banks + bank;
                    const Rows b = shuffle_rows(my_bank, slot);
                    int r = -1;
                    if (lane == l) {
                        r = lowest_clear(either(mine, b), width);
                        if (r < 0) r = lowest_clear(mine, width);
                        mine.w[r / 64] |= 1ull << (r % 64);
                        keys[at(head)] = keys[at(head)] | unsigned(r);
                    }
                    r = __shfl_sync(full_mask, r, l);
                    if (lane == slot) my_bank.w[r / 64] |= 1ull << (r % 64);
                }
            }
            if (holding) ++head;
        }
        write_column(idx, val, keys, original, width, count, lane, true);
        share_padding(idx, val, width, lane, banks);
        after = region_wavefronts(idx, width, lane, banks);
        if (after >= before) {  // the sweep's order only when it has fewer wavefronts
            write_column(idx, val, keys, original, width, count, lane, false);
            after = before;
        }
    }
    if (lane == 0 && totals) {
        atomicAdd(totals, static_cast<unsigned long long>(before));
        atomicAdd(totals + 1, static_cast<unsigned long long>(after));
    }
}

}  // namespace

template <typename P>
void order_slots_for_banks(const size_type* warpdispl, size_type regions, std::uint16_t* index, P* payload, int banks,
                           unsigned long long* totals, cudaStream_t stream) {
    if (regions <= 0) return;
    TESSEL_LAUNCH(dim3(static_cast<unsigned>(regions)), dim3(warp_size), 0, stream, bank_order_kernel<P>)(
        warpdispl, index, payload, banks, totals);
    TESSEL_CUDA_CHECK(cudaGetLastError());
}

#define TESSEL_INSTANTIATE(P)                                                                               \
    template void order_slots_for_banks(const size_type*, size_type, std::uint16_t*, P*, int, unsigned long long*, \
                                        cudaStream_t);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
TESSEL_INSTANTIATE(std::uint16_t)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda::detail
