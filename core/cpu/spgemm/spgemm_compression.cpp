// Packing B's rows into 32-column bit sets (the symbolic phase's compressed B).
#include "core/cpu/spgemm/spgemm_compression.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "core/instantiate.hpp"

namespace tessel::cpu {

namespace {

// True when the row's sets (column / 32) never decrease, the common case of sorted rows.
template <typename I>
bool sets_ascending(const I* col, size_type len) {
    for (size_type e = 1; e < len; ++e)
        if ((col[e] >> 5) < (col[e - 1] >> 5)) return false;
    return true;
}

}  // namespace

template <typename V, typename I>
std::vector<size_type> bitset_row_lengths(const Csr<V, I>& b) {
    std::vector<size_type> lengths(static_cast<std::size_t>(b.rows()));
    const size_type* rp = b.row_ptr().data();
    const I* col = b.col_idx().data();
#pragma omp parallel
    {
        std::vector<I> sets;  // unsorted rows only
#pragma omp for schedule(dynamic, 1024)
        for (size_type j = 0; j < b.rows(); ++j) {
            const I* c = col + rp[j];
            const size_type len = rp[j + 1] - rp[j];
            size_type count = 0;
            if (sets_ascending(c, len)) {
                for (size_type e = 0; e < len; ++e)
                    count += (e == 0 || (c[e] >> 5) != (c[e - 1] >> 5));
            } else {
                sets.resize(static_cast<std::size_t>(len));
                for (size_type e = 0; e < len; ++e) sets[e] = c[e] >> 5;
                std::sort(sets.begin(), sets.end());
                count = std::unique(sets.begin(), sets.end()) - sets.begin();
            }
            lengths[j] = count;
        }
    }
    return lengths;
}

template <typename V, typename I>
BitsetRows<I> compress_rows(const Csr<V, I>& b, const std::vector<size_type>& lengths) {
    BitsetRows<I> out;
    out.rows = b.rows();
    out.sets = (b.cols() + 31) / 32;
    out.row_ptr.assign(static_cast<std::size_t>(b.rows() + 1), 0);
    std::partial_sum(lengths.begin(), lengths.end(), out.row_ptr.begin() + 1);
    out.set.resize(static_cast<std::size_t>(out.row_ptr.back()));
    out.bits.resize(static_cast<std::size_t>(out.row_ptr.back()));
    const size_type* rp = b.row_ptr().data();
    const I* col = b.col_idx().data();
#pragma omp parallel
    {
        std::vector<I> sorted;  // unsorted rows only
#pragma omp for schedule(dynamic, 1024)
        for (size_type j = 0; j < b.rows(); ++j) {
            const I* c = col + rp[j];
            size_type len = rp[j + 1] - rp[j];
            if (!sets_ascending(c, len)) {
                sorted.assign(c, c + len);
                std::sort(sorted.begin(), sorted.end());
                c = sorted.data();
            }
            I* set = out.set.data() + out.row_ptr[j];
            std::uint32_t* bits = out.bits.data() + out.row_ptr[j];
            size_type n = -1;
            for (size_type e = 0; e < len; ++e) {
                const I s = c[e] >> 5;
                if (n < 0 || set[n] != s) {
                    set[++n] = s;
                    bits[n] = 0;
                }
                bits[n] |= std::uint32_t(1) << (c[e] & 31);
            }
        }
    }
    return out;
}

#define TESSEL_INSTANTIATE(V, I)                                                  \
    template std::vector<size_type> bitset_row_lengths(const Csr<V, I>&);         \
    template BitsetRows<I> compress_rows(const Csr<V, I>&, const std::vector<size_type>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cpu
