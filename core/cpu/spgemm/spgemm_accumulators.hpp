// Row accumulators of the cpu SpGEMM (Deveci et al. 2018, §3.1.2): dense arrays of k entries
// per thread, and a two-level hash map whose small first level stays in cache and whose
// second level is a chunk of the memory pool, taken only by rows that overflow the first.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "core/cpu/spgemm/spgemm_memory_pool.hpp"
#include "core/types.hpp"

#include "core/cpu/isa_region.hpp"

// In the kernel region of the level being compiled (core/cpu/isa_region.hpp).
TESSEL_CPU_ISA_BEGIN
namespace spgemm_detail {

/// No payload: the symbolic phase only needs the keys.
struct NoPayload {};

/// Open-addressing hash map, two levels. Level 1 is a thread's own array (a window of it
/// sized to the row is used, so small rows touch few cache lines); it admits keys while at
/// most half full (the paper's 50% maximum occupancy for linear probing). Keys that find
/// level 1 full go to level 2, a chunk from the pool sized for the longest row, taken at the
/// first overflow of a row and given back at its end. Keys are columns (>= 0); -1 is empty.
template <typename IndexType, typename Payload>
class TwoLevelHash {
public:
    struct Slot {
        IndexType key;
        [[no_unique_address]] Payload value;
    };

    /// l1: `l1_slots` slots (a power of two), all empty. l2_pool: chunks of `l2_slots` slots
    /// (a power of two >= twice the longest row), or nullptr when no row can overflow.
    TwoLevelHash(Slot* l1, size_type l1_slots, SpgemmMemoryPool* l2_pool, size_type l2_slots,
                 size_type thread)
        : l1_(l1), l1_slots_(l1_slots), pool_(l2_pool), l2_slots_(l2_slots), thread_(thread) {}

    /// Starts a row with at most `bound` distinct keys.
    void begin_row(size_type bound) {
        bound_ = std::max<size_type>(bound, 1);
        const size_type want = std::bit_ceil(std::uint64_t(2 * bound_));
        l1_window_ = std::clamp<size_type>(want, 16, l1_slots_);
        l1_shift_ = 64 - std::countr_zero(std::uint64_t(l1_window_));
        l1_limit_ = l1_window_ / 2;
        l1_used_ = 0;
        l2_used_ = 0;
    }

    /// The slot of `key`; inserted (value left for the caller to set) when absent, then
    /// `fresh` is true.
    Slot* insert(IndexType key, bool& fresh) {
        size_type h = hash(key, l1_shift_);
        const size_type mask = l1_window_ - 1;
        for (;;) {
            Slot& s = l1_[h];
            if (s.key == key) {
                fresh = false;
                return &s;
            }
            if (s.key == empty) {
                if (l1_used_ < l1_limit_) {
                    s.key = key;
                    ++l1_used_;
                    fresh = true;
                    return &s;
                }
                return insert_l2(key, fresh);
            }
            h = (h + 1) & mask;
        }
    }

    /// The slot of `key`, or nullptr when it is in neither level.
    Slot* find(IndexType key) {
        size_type h = hash(key, l1_shift_);
        const size_type mask = l1_window_ - 1;
        for (;;) {
            Slot& s = l1_[h];
            if (s.key == key) return &s;
            if (s.key == empty) break;
            h = (h + 1) & mask;
        }
        if (l2_ == nullptr) return nullptr;
        h = hash(key, l2_shift_);
        const size_type mask2 = l2_window_ - 1;
        for (;;) {
            Slot& s = l2_[h];
            if (s.key == key) return &s;
            if (s.key == empty) return nullptr;
            h = (h + 1) & mask2;
        }
    }

    /// Calls f(key, value) for every entry of the row (level 1, then level 2).
    template <typename F>
    void for_each(F&& f) {
        for (size_type h = 0; h < l1_window_; ++h)
            if (l1_[h].key != empty) f(l1_[h].key, l1_[h].value);
        if (l2_ != nullptr)
            for (size_type h = 0; h < l2_window_; ++h)
                if (l2_[h].key != empty) f(l2_[h].key, l2_[h].value);
    }

    /// Empties level 1 and gives level 2 back to the pool.
    void end_row() {
        for (size_type h = 0; h < l1_window_; ++h) l1_[h].key = empty;
        if (l2_ != nullptr) {
            pool_->release(l2_);
            l2_ = nullptr;
        }
    }

    /// Entries that went to level 2 in this row (tests use it to see the spill happen).
    size_type l2_entries() const { return l2_used_; }
    bool spilled() const { return l2_ != nullptr; }

    static constexpr IndexType empty = IndexType(-1);

private:
    // Fibonacci hashing: the top bits of key·2^64/φ; consecutive columns spread evenly.
    static size_type hash(IndexType key, int shift) {
        return size_type((std::uint64_t(key) * 0x9E3779B97F4A7C15ull) >> shift);
    }

    [[gnu::noinline]] Slot* insert_l2(IndexType key, bool& fresh) {
        if (l2_ == nullptr) {
            l2_ = static_cast<Slot*>(pool_->acquire(thread_));
            l2_window_ = std::clamp<size_type>(std::bit_ceil(std::uint64_t(2 * bound_)), 16, l2_slots_);
            l2_shift_ = 64 - std::countr_zero(std::uint64_t(l2_window_));
            l2_used_ = 0;
            for (size_type h = 0; h < l2_window_; ++h) l2_[h].key = empty;
        }
        size_type h = hash(key, l2_shift_);
        const size_type mask = l2_window_ - 1;
        for (;;) {
            Slot& s = l2_[h];
            if (s.key == key) {
                fresh = false;
                return &s;
            }
            if (s.key == empty) {
                s.key = key;
                ++l2_used_;
                fresh = true;
                return &s;
            }
            h = (h + 1) & mask;
        }
    }

    Slot* l1_;
    size_type l1_slots_;
    SpgemmMemoryPool* pool_;
    size_type l2_slots_;
    size_type thread_;
    size_type bound_ = 1;
    size_type l1_window_ = 16, l1_limit_ = 8, l1_used_ = 0;
    int l1_shift_ = 60;
    Slot* l2_ = nullptr;
    size_type l2_window_ = 16, l2_used_ = 0;
    int l2_shift_ = 60;
};

/// Dense set of columns for the plain symbolic phase: a stamp per column, so starting a row
/// costs nothing (a column is in the row when its stamp is the row's).
class DenseMarker {
public:
    DenseMarker(std::uint32_t* stamps, size_type cols) : stamps_(stamps), cols_(cols) {
        std::fill(stamps_, stamps_ + cols_, 0u);
    }
    void begin_row() {
        if (++stamp_ == 0) {  // wrapped after 2^32 rows: clear once
            std::fill(stamps_, stamps_ + cols_, 0u);
            stamp_ = 1;
        }
    }
    /// True when `col` was not yet in the row.
    bool insert(size_type col) {
        if (stamps_[col] == stamp_) return false;
        stamps_[col] = stamp_;
        return true;
    }

private:
    std::uint32_t* stamps_;
    size_type cols_;
    std::uint32_t stamp_ = 0;
};

/// Dense bit sets for the compressed symbolic phase: one 32-bit word per set of 32 columns,
/// and the list of words touched by the row (to count and clear them).
template <typename IndexType>
class DenseBitsets {
public:
    DenseBitsets(std::uint32_t* words, IndexType* touched, size_type sets)
        : words_(words), touched_(touched) {
        std::fill(words_, words_ + sets, 0u);
    }
    void insert(IndexType set, std::uint32_t bits) {
        const std::uint32_t old = words_[set];
        if (old == 0) touched_[n_++] = set;
        words_[set] = old | bits;
    }
    /// Calls f(set, bits) for every touched set, then clears them.
    template <typename F>
    void drain(F&& f) {
        for (size_type t = 0; t < n_; ++t) {
            f(touched_[t], words_[touched_[t]]);
            words_[touched_[t]] = 0;
        }
        n_ = 0;
    }

private:
    std::uint32_t* words_;
    IndexType* touched_;
    size_type n_ = 0;
};

}  // namespace spgemm_detail
TESSEL_CPU_ISA_END
