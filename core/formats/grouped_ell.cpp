// Tiled ELL of row groups from a tiled ELL matrix: the blocks, stages and maps carry over; per
// (stage, thread) the union of its rows' staged positions, in two parallel passes over the
// blocks (widths, then every slot written, padding included).
#include "core/formats/grouped_ell.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "core/error.hpp"
#include "core/formats/bank_order_sweep.hpp"
#include "core/formats/coo.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel {

template <typename V, typename I>
size_type GroupedEll<V, I>::max_stage_entries() const {
    size_type longest = 0;
    for (size_type s = 0; s < num_stages(); ++s) longest = std::max(longest, mapdispl[s + 1] - mapdispl[s]);
    return longest;
}

namespace {

/// One thread's rows in one stage: the union of their buffer positions in order of first
/// appearance (each row's own order, so ascending runs) and each position's union slot. A stamp
/// per position finds repeats without sorting.
struct GroupUnion {
    std::vector<std::uint32_t> stamp = std::vector<std::uint32_t>(65536, 0);
    std::vector<std::uint16_t> slot_of = std::vector<std::uint16_t>(65536, 0);
    std::uint32_t current = 0;
    std::vector<std::uint16_t> positions;
};

/// f(g, position, e) for each nonzero of rows first_row + g (g < group, of the block) in stage
/// `stage` of `a`, e its entry in a's slots (padding left out).
template <typename V, typename I, typename F>
void for_each_group_entry(const TiledEll<V, I>& a, size_type stage, size_type first_row, size_type group, F&& f) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type warps = a.warps_per_block();
    for (size_type g = 0; g < group; ++g) {
        const size_type r = first_row + g, wi = r / w, lane = r % w;
        for (size_type m = a.warpdispl[stage * warps + wi]; m < a.warpdispl[stage * warps + wi + 1]; ++m)
            if (a.value(m * w + lane) != V{0}) f(g, a.index[m * w + lane], m * w + lane);
    }
}

/// The union of rows first_row .. first_row + group - 1 (of the block) in stage `stage` of `a`.
template <typename V, typename I>
void collect_union(const TiledEll<V, I>& a, size_type stage, size_type first_row, size_type group, GroupUnion& u) {
    u.positions.clear();
    if (++u.current == 0) {  // the stamps wrapped around: start them afresh
        std::fill(u.stamp.begin(), u.stamp.end(), 0);
        u.current = 1;
    }
    for_each_group_entry(a, stage, first_row, group, [&u](size_type, std::uint16_t p, size_type) {
        if (u.stamp[p] == u.current) return;
        u.stamp[p] = u.current;
        u.slot_of[p] = static_cast<std::uint16_t>(u.positions.size());
        u.positions.push_back(p);
    });
}

}  // namespace

void check_row_groups(size_type group, size_type block_rows) {
    if (group != 1 && group != 2 && group != 4 && group != 8)
        TESSEL_INVALID_INPUT("row groups", 0, std::to_string(group) + " is not one of 1, 2, 4, 8");
    if (block_rows % (32 * group) != 0)
        TESSEL_INVALID_INPUT("row groups", 0,
                             std::to_string(group) + " rows per thread need block_rows a multiple of " +
                                 std::to_string(32 * group) + ", not " + std::to_string(block_rows));
}

namespace {

/// Pass 1: the slot width of each (stage, warp of groups), stage by stage over all blocks.
template <typename V, typename I>
std::vector<size_type> group_widths(const TiledEll<V, I>& a, size_type group) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type threads = a.config.block_rows / group, gwarps = threads / w;
    std::vector<size_type> widths(static_cast<std::size_t>(a.num_stages() * gwarps), 0);
#pragma omp parallel
    {
        GroupUnion u;
#pragma omp for schedule(dynamic, 4)
        for (size_type b = 0; b < a.num_blocks(); ++b)
            for (size_type s = a.buffdispl[b]; s < a.buffdispl[b + 1]; ++s)
                for (size_type t = 0; t < threads; ++t) {
                    collect_union(a, s, t * group, group, u);
                    size_type& width = widths[static_cast<std::size_t>(s * gwarps + t / w)];
                    width = std::max(width, static_cast<size_type>(u.positions.size()));
                }
    }
    return widths;
}

/// One warp's slots of one stage while they are made: index and the group's values per (slot
/// row, lane), interleaved as the bank-order sweep takes them.
template <typename Store, int G>
struct WarpRegion {
    using Payload = std::array<Store, G>;
    std::vector<std::uint16_t> index;
    std::vector<Payload> payload;
    std::vector<std::uint16_t> as_made;  // the indices in each lane's order of first appearance

    void clear(size_type slots) {
        index.assign(static_cast<std::size_t>(slots), 0);
        as_made.assign(static_cast<std::size_t>(slots), 0);
        payload.assign(static_cast<std::size_t>(slots), Payload{});
    }
};

/// The value of tiled slot entry e as stored (half bits or ValueType).
template <typename Store, typename V, typename I>
Store stored_value(const TiledEll<V, I>& a, size_type e) {
    if constexpr (std::is_same_v<Store, std::uint16_t>)
        return a.half_values[e];
    else
        return a.values[e];
}

/// The slot row of each union entry of one lane, spread over the banks diagonally: row m takes a
/// position in bank (lane + m) mod banks where the lane has one left, else the next bank that
/// has, so that the lanes of a row mostly read distinct banks. Linear in the entries: the sweep
/// of order_slots_for_banks places a warp's regions of up to 128 rows better, but a group's
/// union makes regions of hundreds of rows (3072-entry stages: 2.6 wavefronts per row as made).
class DiagonalBanks {
public:
    void place(const std::vector<std::uint16_t>& positions, int lane, int banks, std::vector<int>& row_of) {
        const int n = static_cast<int>(positions.size());
        start_.assign(static_cast<std::size_t>(banks + 1), 0);
        for (const std::uint16_t p : positions) ++start_[(p & (banks - 1)) + 1];
        for (int b = 0; b < banks; ++b) start_[b + 1] += start_[b];
        next_.assign(start_.begin(), start_.end() - 1);
        by_bank_.resize(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) by_bank_[next_[positions[i] & (banks - 1)]++] = i;
        next_.assign(start_.begin(), start_.end() - 1);
        row_of.resize(static_cast<std::size_t>(n));
        for (int m = 0; m < n; ++m)
            for (int j = 0; j < banks; ++j) {
                const int b = (lane + m + j) & (banks - 1);
                if (next_[b] < start_[b + 1]) {
                    row_of[by_bank_[next_[b]++]] = m;
                    break;
                }
            }
    }

private:
    std::vector<int> start_, next_, by_bank_;
};

/// The widest (stage, warp) of groups, in slot rows, that the sweep reorders (the diagonal
/// spread alone beyond): 3072-entry stages with 1024-row blocks of 4-row groups reach ~1000.
constexpr int group_order_max_width = 2048;

/// One thread's scratch for pass 2: a (stage, warp) of groups made as a region (each lane's
/// union, then padding), put in bank order, and written into the matrix's slots.
template <int G, typename Store, typename V, typename I>
class RegionMaker {
public:
    explicit RegionMaker(int banks) : banks_(banks), cost_(banks > 0 ? banks : 32), order_(banks > 0 ? banks : 32) {}

    /// The unions of warp `gw`'s lanes in stage `s`, spread diagonally over the banks when
    /// ordering, else in order of first appearance.
    void make(const TiledEll<V, I>& a, size_type s, size_type gw, size_type width) {
        region_.clear(width * w);
        for (size_type lane = 0; lane < w; ++lane) {
            const size_type first_row = (gw * w + lane) * G;
            collect_union(a, s, first_row, G, u_);
            if (banks_ > 0) {
                diagonal_.place(u_.positions, static_cast<int>(lane), banks_, row_of_);
            } else {
                row_of_.resize(u_.positions.size());
                for (std::size_t i = 0; i < row_of_.size(); ++i) row_of_[i] = static_cast<int>(i);
            }
            for (std::size_t i = 0; i < u_.positions.size(); ++i) {
                region_.as_made[i * w + lane] = u_.positions[i];
                region_.index[row_of_[i] * w + lane] = u_.positions[i];
            }
            for_each_group_entry(a, s, first_row, G, [&](size_type g, std::uint16_t p, size_type e) {
                region_.payload[row_of_[u_.slot_of[p]] * w + lane][g] = stored_value<Store>(a, e);
            });
        }
    }

    /// The sweep of order_slots_for_banks where it does better than the diagonal spread, padding
    /// on shared indices; the wavefronts as made and as ordered.
    std::pair<long long, long long> order(size_type width) {
        const long long made = detail::region_wavefronts(region_.as_made.data(), static_cast<int>(width), cost_);
        const auto [spread, ordered] = order_.run(region_.index.data(), region_.payload.data(), static_cast<int>(width), cost_);
        if (ordered < spread) return {made, ordered};  // the sweep's order, padding shared already
        detail::share_padding(region_.index.data(), region_.payload.data(), static_cast<int>(width), banks_);
        return {made, detail::region_wavefronts(region_.index.data(), static_cast<int>(width), cost_)};
    }

    /// The region into the slots from m0 on (its payload is already in the values' order).
    void write(GroupedEll<V, I>& out, Store* values, size_type m0, size_type width) const {
        using Payload = typename WarpRegion<Store, G>::Payload;
        static_assert(sizeof(Payload) == G * sizeof(Store), "a slot's values lie together");
        std::copy(region_.index.begin(), region_.index.end(), out.index.begin() + m0 * w);
        std::memcpy(values + m0 * w * G, region_.payload.data(), static_cast<std::size_t>(width * w) * sizeof(Payload));
    }

private:
    static constexpr size_type w = GroupedEll<V, I>::warp_size;
    int banks_;
    GroupUnion u_;
    WarpRegion<Store, G> region_;
    DiagonalBanks diagonal_;
    std::vector<int> row_of_;
    detail::RowCost cost_;
    detail::WarpOrder<typename WarpRegion<Store, G>::Payload, group_order_max_width> order_;
};

/// Pass 2: every (stage, warp) of groups made, for `banks` shared-memory banks when banks > 0,
/// and written into `out`'s slots. Returns the wavefronts summed as made and as written.
template <int G, typename Store, typename V, typename I>
std::pair<long long, long long> fill_groups(GroupedEll<V, I>& out, Store* values, const TiledEll<V, I>& a, int banks) {
    const size_type gwarps = out.warps_per_block();
    long long before = 0, after = 0;
#pragma omp parallel reduction(+ : before, after)
    {
        RegionMaker<G, Store, V, I> maker(banks);
#pragma omp for schedule(dynamic, 4)
        for (size_type b = 0; b < a.num_blocks(); ++b)
            for (size_type s = a.buffdispl[b]; s < a.buffdispl[b + 1]; ++s)
                for (size_type gw = 0; gw < gwarps; ++gw) {
                    const size_type m0 = out.warpdispl[s * gwarps + gw], width = out.warpdispl[s * gwarps + gw + 1] - m0;
                    maker.make(a, s, gw, width);
                    if (banks > 0) {
                        const auto [was, is] = maker.order(width);
                        before += was;
                        after += is;
                    }
                    maker.write(out, values, m0, width);
                }
    }
    return {before, after};
}

/// fill_groups for the group size and storage of `out`.
template <typename V, typename I>
std::pair<long long, long long> fill_all(GroupedEll<V, I>& out, const TiledEll<V, I>& a, int banks) {
    const auto run = [&](auto g) {
        constexpr int G = decltype(g)::value;
        return out.stores_half() ? fill_groups<G>(out, out.half_values.data(), a, banks)
                                 : fill_groups<G>(out, out.values.data(), a, banks);
    };
    switch (out.group) {
    case 1: return run(std::integral_constant<int, 1>{});
    case 2: return run(std::integral_constant<int, 2>{});
    case 4: return run(std::integral_constant<int, 4>{});
    default: return run(std::integral_constant<int, 8>{});
    }
}

}  // namespace

template <typename V, typename I>
GroupedEll<V, I> group_rows(const TiledEll<V, I>& a, size_type group, BankOrder* bank_order) {
    constexpr size_type w = TiledEll<V, I>::warp_size;
    check_row_groups(group, a.config.block_rows);
    if (a.stored() == 0 && !a.warpdispl.empty() && a.warpdispl.back() > 0)
        TESSEL_INVALID_INPUT("row groups", 0, "the tiled ELL matrix has no slots (a layout only)");
    GroupedEll<V, I> out;
    out.rows = a.rows;
    out.cols = a.cols;
    out.nnz = a.nnz;
    out.block_rows = a.config.block_rows;
    out.group = group;
    out.buffdispl = a.buffdispl;
    out.mapdispl = a.mapdispl;
    out.map = a.map;
    const std::vector<size_type> widths = group_widths(a, group);
    out.warpdispl.assign(widths.size() + 1, 0);
    for (std::size_t i = 0; i < widths.size(); ++i) out.warpdispl[i + 1] = out.warpdispl[i] + widths[i];
    out.index.resize(static_cast<std::size_t>(out.slots() * w));
    const auto stored = static_cast<std::size_t>(out.slots() * group * w);
    a.stores_half() ? out.half_values.resize(stored) : out.values.resize(stored);
    const int banks = bank_order ? grouped_bank_groups : 0;
    const auto [before, after] = fill_all(out, a, banks);
    if (bank_order) {
        const double rows = double(std::max<size_type>(1, out.slots()));
        bank_order->wavefronts_before = double(before) / rows;
        bank_order->wavefronts_after = double(after) / rows;
    }
    return out;
}

template <typename V, typename I>
Csr<V, I> csr_from_grouped_ell(const GroupedEll<V, I>& a) {
    constexpr size_type w = GroupedEll<V, I>::warp_size;
    Coo<V, I> coo;
    coo.rows = a.rows;
    coo.cols = a.cols;
    const size_type gwarps = a.warps_per_block(), group = a.group;
    for (size_type b = 0; b < a.num_blocks(); ++b)
        for (size_type s = a.buffdispl[b]; s < a.buffdispl[b + 1]; ++s)
            for (size_type t = 0; t < a.threads_per_block(); ++t)
                for (size_type m = a.warpdispl[s * gwarps + t / w]; m < a.warpdispl[s * gwarps + t / w + 1]; ++m)
                    for (size_type g = 0; g < group; ++g) {
                        const size_type row = b * a.block_rows + t * group + g;
                        const V v = a.value((m * w + t % w) * group + g);
                        if (row >= a.rows || v == V{0}) continue;
                        coo.row.push_back(static_cast<I>(row));
                        coo.col.push_back(a.map[a.mapdispl[s] + a.index[m * w + t % w]]);
                        coo.values.push_back(v);
                    }
    return csr_from_coo(coo, "grouped_ell");
}

namespace reference {

template <typename V, typename I>
void spmm(const GroupedEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& epilogue) {
    check_spmm_dims(a.rows, a.cols, b, c);
    constexpr size_type w = GroupedEll<V, I>::warp_size;
    const size_type gwarps = a.warps_per_block(), group = a.group;
    std::vector<V> sum(static_cast<std::size_t>(a.block_rows));
    for (size_type blk = 0; blk < a.num_blocks(); ++blk) {
        const size_type first_row = blk * a.block_rows;
        for (size_type j = 0; j < b.cols; ++j) {
            std::fill(sum.begin(), sum.end(), V{0});
            for (size_type s = a.buffdispl[blk]; s < a.buffdispl[blk + 1]; ++s)
                for (size_type t = 0; t < a.threads_per_block(); ++t)
                    for (size_type m = a.warpdispl[s * gwarps + t / w]; m < a.warpdispl[s * gwarps + t / w + 1]; ++m) {
                        const size_type col = a.map[a.mapdispl[s] + a.index[m * w + t % w]];
                        for (size_type g = 0; g < group; ++g)
                            sum[t * group + g] += a.value((m * w + t % w) * group + g) * b(col, j);
                    }
            for (size_type r = 0; r < a.block_rows && first_row + r < a.rows; ++r)
                c(first_row + r, j) = epilogue.apply(sum[r], c(first_row + r, j));
        }
    }
}

}  // namespace reference

#define TESSEL_INSTANTIATE(V, I)                                                                       \
    template struct GroupedEll<V, I>;                                                                  \
    template GroupedEll<V, I> group_rows(const TiledEll<V, I>&, size_type, BankOrder*);               \
    template Csr<V, I> csr_from_grouped_ell(const GroupedEll<V, I>&);                                 \
    template void reference::spmm(const GroupedEll<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
