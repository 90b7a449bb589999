// The sweep of order_slots_for_banks on one (stage, warp) of slots, and the wavefront count it
// lowers (internal): the tiled ELL's slots (core/formats/tiled_ell_bank_order.cpp) and the row
// groups' (core/formats/grouped_ell.cpp, whose payload is a group's values) run the same one.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/formats/tiled_ell_bank_order.hpp"

namespace tessel::detail {

/// Lanes of a warp: the slot rows of the sweep are this wide.
constexpr int bank_order_lanes = 32;

// Wavefronts of one slot row: per phase of `banks` lanes, the most distinct indices that share
// a bank.
class RowCost {
public:
    explicit RowCost(int banks) : banks_(banks) {}
    int operator()(const std::uint16_t* index) {
        int worst = 0;
        for (int p = 0; p < bank_order_lanes; p += banks_) {
            count_.fill(0);
            for (int l = p; l < p + banks_; ++l) {
                const std::uint16_t i = index[l];
                const int b = i & (banks_ - 1);
                bool seen = false;
                for (int q = 0; q < count_[b] && !seen; ++q) seen = seen_[b][q] == i;
                if (!seen) seen_[b][count_[b]++] = i;
                worst = std::max(worst, count_[b]);
            }
        }
        return worst;
    }

private:
    int banks_;
    std::array<int, bank_order_lanes> count_{};
    std::array<std::array<std::uint16_t, bank_order_lanes>, bank_order_lanes> seen_{};
};

// Wavefronts of `width` slot rows from `index` on.
inline long long region_wavefronts(const std::uint16_t* index, int width, RowCost& cost) {
    long long total = 0;
    for (int m = 0; m < width; ++m) total += cost(index + m * bank_order_lanes);
    return total;
}

// True when the payload's bytes are all zero (padding's value; -0.0 is not padding).
template <typename P>
inline bool zero_bits(const P& p) {
    P zero{};
    return std::memcmp(&p, &zero, sizeof(P)) == 0;
}

/// Each padding slot (index 0, value bits 0) of `width` slot rows reads the index of the first
/// lane of its phase of `banks` lanes that has an entry in its row (value 0: the product is the
/// same), so it costs no wavefront of its own; index 0 when the phase has none.
template <typename P>
void share_padding(std::uint16_t* index, const P* payload, int width, int banks) {
    for (int m = 0; m < width; ++m) {
        std::uint16_t* row = index + m * bank_order_lanes;
        const P* values = payload + m * bank_order_lanes;
        for (int p = 0; p < bank_order_lanes; p += banks) {
            std::uint32_t pads = 0;
            std::uint16_t shared = 0;
            bool found = false;
            for (int l = p + banks - 1; l >= p; --l) {
                const bool pad = row[l] == 0 && zero_bits(values[l]);
                pads |= std::uint32_t(pad) << l;
                if (!pad) {
                    shared = row[l];
                    found = true;
                }
            }
            if (!found) continue;
            for (; pads; pads &= pads - 1) row[std::countr_zero(pads)] = shared;
        }
    }
}

// The slots of one (stage, warp) reordered in place (`index` and `payload` at its first slot
// row, `width` slot rows of 32 lanes), by the sweep of order_slots_for_banks: each lane's
// entries sorted by index (stable), then the smallest index at the lanes' heads is given one
// slot row for all the lanes that hold it there. Rows in use are bit sets per lane and per
// (phase, bank); the cuda kernel (core/cuda/kernels/bank_order_kernels.cu) does the same.
// MaxWidth: the widest region reordered (wider ones keep their order); the tiled ELL's is
// bank_order_max_width, as its cuda kernel's, the row groups' wider (made on the host only).
template <typename P, int MaxWidth = bank_order_max_width>
class WarpOrder {
public:
    explicit WarpOrder(int banks) : banks_(banks) {}

    /// The region's wavefronts before and after (the sweep's order is kept only when it has
    /// fewer, else the region is put back as it was).
    std::pair<long long, long long> run(std::uint16_t* index, P* payload, int width, RowCost& cost) {
        const long long before = region_wavefronts(index, width, cost);
        if (width <= 1 || width > MaxWidth) return {before, before};
        sort_lanes(index, payload, width);
        lane_rows_.fill(Rows{});
        bank_rows_.fill(Rows{});
        std::array<int, bank_order_lanes> head{};
        while (true) {
            std::uint32_t u = no_index;
            for (int l = 0; l < bank_order_lanes; ++l)
                if (head[l] < count_[l]) u = std::min<std::uint32_t>(u, entry(l, head[l]).index);
            if (u == no_index) break;
            std::uint32_t holders = 0;
            for (int l = 0; l < bank_order_lanes; ++l)
                if (head[l] < count_[l] && entry(l, head[l]).index == u) holders |= 1u << l;
            place(static_cast<std::uint16_t>(u), holders, width, head);
        }
        write(index, payload, width, &Entry::row);
        share_padding(index, payload, width, banks_);
        const long long after = region_wavefronts(index, width, cost);
        if (after < before) return {before, after};
        write(index, payload, width, &Entry::slot);
        return {before, before};
    }

private:
    static constexpr std::uint32_t no_index = 1u << 16;
    static constexpr int words = MaxWidth / 64;
    using Rows = std::array<std::uint64_t, words>;
    struct Entry {
        std::uint16_t index;
        int slot;  // the slot row it came from
        int row;   // the slot row the sweep gives it
        P value;
    };

    // Every lane's entries at their `where` rows, padding elsewhere.
    void write(std::uint16_t* index, P* payload, int width, int Entry::*where) {
        std::fill(index, index + width * bank_order_lanes, std::uint16_t(0));
        std::fill(payload, payload + width * bank_order_lanes, P{});
        for (int l = 0; l < bank_order_lanes; ++l)
            for (int j = 0; j < count_[l]; ++j) {
                const Entry& e = entry(l, j);
                index[e.*where * bank_order_lanes + l] = e.index;
                payload[e.*where * bank_order_lanes + l] = e.value;
            }
    }

    Entry& entry(int l, int j) { return entries_[static_cast<std::size_t>(l * MaxWidth + j)]; }

    // Each lane's entries (its slots before the trailing padding of index 0 and value bits 0),
    // sorted by index, equal indices in slot order.
    void sort_lanes(const std::uint16_t* index, const P* payload, int width) {
        entries_.resize(static_cast<std::size_t>(bank_order_lanes * MaxWidth));
        for (int l = 0; l < bank_order_lanes; ++l) {
            int count = width;
            while (count > 0 && index[(count - 1) * bank_order_lanes + l] == 0 && zero_bits(payload[(count - 1) * bank_order_lanes + l]))
                --count;
            count_[l] = count;
            if (!sort_distinct(index, payload, l)) sort_by_keys(index, payload, l);
        }
    }

    // Lane l's entries in index order by a bit per index (linear; a lane's union has each index
    // once). False, and nothing written, when an index repeats (padding shared before).
    bool sort_distinct(const std::uint16_t* index, const P* payload, int l) {
        int top = -1;
        for (int m = 0; m < count_[l]; ++m) {
            const std::uint16_t i = index[m * bank_order_lanes + l];
            const std::uint64_t bit = std::uint64_t(1) << (i % 64);
            top = std::max(top, i / 64);
            if (seen_[i / 64] & bit) {
                std::fill(seen_.begin(), seen_.begin() + top + 1, 0);
                return false;
            }
            seen_[i / 64] |= bit;
            slot_of_[i] = static_cast<std::uint16_t>(m);
        }
        int j = 0;
        for (int w = 0; w <= top; ++w) {
            for (std::uint64_t b = seen_[w]; b; b &= b - 1) {
                const int i = w * 64 + std::countr_zero(b), m = slot_of_[i];
                entry(l, j++) = {static_cast<std::uint16_t>(i), m, 0, payload[m * bank_order_lanes + l]};
            }
            seen_[w] = 0;
        }
        return true;
    }

    // The same for any lane: keys of (index, slot row) are distinct, so sorting them is a stable
    // sort by index.
    void sort_by_keys(const std::uint16_t* index, const P* payload, int l) {
        static_assert(MaxWidth <= 65536, "a slot row must fit the key's low 16 bits");
        keys_.resize(static_cast<std::size_t>(count_[l]));
        for (int m = 0; m < count_[l]; ++m) keys_[m] = std::uint32_t(index[m * bank_order_lanes + l]) << 16 | std::uint32_t(m);
        std::sort(keys_.begin(), keys_.end());
        for (int j = 0; j < count_[l]; ++j) {
            const int m = static_cast<int>(keys_[j] & 0xffff);
            entry(l, j) = {index[m * bank_order_lanes + l], m, 0, payload[m * bank_order_lanes + l]};
        }
    }

    // The lowest row below `width` clear in `busy` (-1: none).
    static int lowest_clear(const Rows& busy, int width) {
        for (int w = 0; w < words; ++w)
            if (~busy[w]) {
                const int r = w * 64 + std::countr_zero(~busy[w]);
                return r < width ? r : -1;
            }
        return -1;
    }

    static Rows either(const Rows& a, const Rows& b) {
        Rows c;
        for (int w = 0; w < words; ++w) c[w] = a[w] | b[w];
        return c;
    }

    Rows& bank_rows(int lane, std::uint16_t u) { return bank_rows_[(lane & ~(banks_ - 1)) + (u & (banks_ - 1))]; }

    // Index u at the heads of the lanes in `holders`: the lowest row free for all of them and
    // for u's bank (in each of their phases), else free for all of them (a conflict), else lane
    // by lane in ascending order (each lane has a free row: it holds at most `width` entries).
    void place(std::uint16_t u, std::uint32_t holders, int width, std::array<int, bank_order_lanes>& head) {
        // The first clear row of the holders' rows, with and without u's bank, word by word up to
        // the first word where both have one (rows fill from the lowest: wide regions stop early).
        constexpr int none = -2;
        int both = none, lanes_only = none;
        for (int w = 0; w < words && both == none; ++w) {
            std::uint64_t lanes_busy = 0, bank_busy = 0;
            for (std::uint32_t h = holders; h; h &= h - 1) {
                const int l = std::countr_zero(h);
                lanes_busy |= lane_rows_[l][w];
                bank_busy |= bank_rows(l, u)[w];
            }
            if (lanes_only == none && ~lanes_busy) lanes_only = w * 64 + std::countr_zero(~lanes_busy);
            if (~(lanes_busy | bank_busy)) both = w * 64 + std::countr_zero(~(lanes_busy | bank_busy));
        }
        const auto within = [width](int r) { return r >= 0 && r < width ? r : -1; };
        int row = within(both);
        if (row < 0) row = within(lanes_only);
        for (std::uint32_t h = holders; h; h &= h - 1) {
            const int l = std::countr_zero(h);
            int r = row;
            if (r < 0) r = lowest_clear(either(lane_rows_[l], bank_rows(l, u)), width);
            if (r < 0) r = lowest_clear(lane_rows_[l], width);
            const std::uint64_t bit = std::uint64_t(1) << (r % 64);
            lane_rows_[l][r / 64] |= bit;
            bank_rows(l, u)[r / 64] |= bit;
            entry(l, head[l]++).row = r;
        }
    }

    int banks_;
    std::vector<Entry> entries_;  // lane l's j-th at l*MaxWidth + j
    std::vector<std::uint32_t> keys_;  // one lane's (index << 16 | slot row) while sorting
    std::array<std::uint64_t, 1024> seen_{};  // a bit per 16-bit index, clear between lanes
    std::vector<std::uint16_t> slot_of_ = std::vector<std::uint16_t>(65536);  // where a seen index came from
    std::array<int, bank_order_lanes> count_{};
    std::array<Rows, bank_order_lanes> lane_rows_{}, bank_rows_{};  // bank_rows_[phase*banks + bank]
};

}  // namespace tessel::detail
