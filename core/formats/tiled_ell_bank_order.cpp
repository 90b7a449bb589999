// The sweep of order_slots_for_banks, one (stage, warp) at a time, and the wavefront count
// it lowers.
#include "core/formats/tiled_ell_bank_order.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/formats/bank_order_sweep.hpp"
#include "core/instantiate.hpp"

namespace tessel {

namespace {

constexpr int lanes = detail::bank_order_lanes;
using detail::RowCost;
using detail::WarpOrder;
using detail::region_wavefronts;

int checked_banks(size_type value_bytes) {
    if (value_bytes != 4 && value_bytes != 8)
        TESSEL_INVALID_INPUT("bank order", 0, "staged values of " + std::to_string(value_bytes) + " bytes (4 or 8)");
    return bank_lanes(value_bytes);
}

// Sum of the slot rows' wavefronts of block b.
template <typename V, typename I>
long long block_wavefronts(const TiledEll<V, I>& a, size_type b, RowCost& cost) {
    const size_type warps = a.warps_per_block(), m0 = a.warpdispl[a.buffdispl[b] * warps];
    return region_wavefronts(a.index.data() + m0 * lanes, static_cast<int>(a.warpdispl[a.buffdispl[b + 1] * warps] - m0),
                             cost);
}

template <typename V, typename I>
double mean_per_row(const TiledEll<V, I>& a, long long total) {
    const size_type rows = a.stored() / lanes;
    return rows > 0 ? double(total) / double(rows) : 0.0;
}

template <typename V, typename I, typename P>
BankOrder reorder(TiledEll<V, I>& a, P* payload, int banks) {
    const size_type warps = a.warps_per_block();
    long long before = 0, after = 0;
#pragma omp parallel reduction(+ : before, after)
    {
        RowCost cost(banks);
        WarpOrder<P> order(banks);
#pragma omp for schedule(dynamic, 4)
        for (size_type b = 0; b < a.num_blocks(); ++b)
            for (size_type s = a.buffdispl[b]; s < a.buffdispl[b + 1]; ++s)
                for (size_type w = 0; w < warps; ++w) {
                    const size_type m0 = a.warpdispl[s * warps + w], m1 = a.warpdispl[s * warps + w + 1];
                    const auto [was, is] = order.run(a.index.data() + m0 * lanes, payload + m0 * lanes,
                                                      static_cast<int>(m1 - m0), cost);
                    before += was;
                    after += is;
                }
    }
    return {mean_per_row(a, before), mean_per_row(a, after)};
}

}  // namespace

template <typename V, typename I>
double bank_wavefronts(const TiledEll<V, I>& a, size_type value_bytes) {
    const int banks = checked_banks(value_bytes);
    long long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        RowCost cost(banks);
#pragma omp for schedule(dynamic, 4)
        for (size_type b = 0; b < a.num_blocks(); ++b) total += block_wavefronts(a, b, cost);
    }
    return mean_per_row(a, total);
}

template <typename V, typename I>
BankOrder order_slots_for_banks(TiledEll<V, I>& a, size_type value_bytes) {
    const int banks = checked_banks(value_bytes);
    return a.stores_half() ? reorder(a, a.half_values.data(), banks) : reorder(a, a.values.data(), banks);
}

#define TESSEL_INSTANTIATE(V, I)                                                         \
    template double bank_wavefronts(const TiledEll<V, I>&, size_type);                   \
    template BankOrder order_slots_for_banks(TiledEll<V, I>&, size_type);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
