// Weight-balanced contiguous partitions.
#include "partition/balanced_partition.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/instantiate.hpp"

namespace tessel::partition {

std::vector<size_type> balanced_offsets(const std::vector<size_type>& weights, int parts) {
    if (parts < 1) TESSEL_INVALID_INPUT("partition", 0, "parts must be at least 1");
    const size_type n = static_cast<size_type>(weights.size());
    std::vector<size_type> prefix(n + 1, 0);
    for (size_type i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + weights[i];
    const size_type total = prefix[n];
    std::vector<size_type> offsets(parts + 1, n);
    offsets[0] = 0;
    for (int p = 1; p < parts; ++p) {
        // First position whose prefix reaches the ideal boundary p·W/parts (rounded).
        const size_type target = (total * p + parts / 2) / parts;
        offsets[p] = std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin();
        offsets[p] = std::clamp(offsets[p], offsets[p - 1], n);
    }
    return offsets;
}

template <typename V, typename I>
std::vector<size_type> row_offsets_by_nnz(const Csr<V, I>& a, int parts) {
    std::vector<size_type> w(a.rows());
    for (size_type i = 0; i < a.rows(); ++i) w[i] = a.row_nnz(i) + 1;
    return balanced_offsets(w, parts);
}

template <typename V, typename I>
std::vector<size_type> col_offsets_by_nnz(const Csr<V, I>& a, int parts) {
    std::vector<size_type> w(a.cols(), 1);
    for (const auto c : a.col_idx()) ++w[c];
    return balanced_offsets(w, parts);
}

std::vector<size_type> even_offsets(size_type n, int parts) {
    if (parts < 1) TESSEL_INVALID_INPUT("partition", 0, "parts must be at least 1");
    std::vector<size_type> offsets(parts + 1);
    for (int p = 0; p <= parts; ++p) offsets[p] = n * p / parts;
    return offsets;
}

double imbalance(const std::vector<size_type>& weights, const std::vector<size_type>& offsets) {
    size_type total = 0, heaviest = 0;
    for (std::size_t p = 0; p + 1 < offsets.size(); ++p) {
        size_type w = 0;
        for (size_type i = offsets[p]; i < offsets[p + 1]; ++i) w += weights[i];
        total += w;
        heaviest = std::max(heaviest, w);
    }
    const double parts = double(offsets.size() - 1);
    return total == 0 ? 0.0 : double(heaviest) * parts / double(total);
}

#define TESSEL_INSTANTIATE(V, I)                                                   \
    template std::vector<size_type> row_offsets_by_nnz(const Csr<V, I>&, int);    \
    template std::vector<size_type> col_offsets_by_nnz(const Csr<V, I>&, int);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::partition
