// Permutations and permuted CSR matrices.
#include "partition/permutation.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "core/instantiate.hpp"

namespace tessel::partition {

Permutation identity_permutation(size_type n) {
    Permutation order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), size_type{0});
    return order;
}

Permutation random_permutation(size_type n, std::uint64_t seed) {
    Permutation order = identity_permutation(n);
    std::mt19937_64 rng(seed);
    for (size_type i = n - 1; i > 0; --i) {
        std::uniform_int_distribution<size_type> pick(0, i);
        std::swap(order[i], order[pick(rng)]);
    }
    return order;
}

bool is_permutation(const Permutation& order) {
    std::vector<char> seen(order.size(), 0);
    for (size_type v : order) {
        if (v < 0 || v >= static_cast<size_type>(order.size()) || seen[v]) return false;
        seen[v] = 1;
    }
    return true;
}

Permutation inverse(const Permutation& order) {
    if (!is_permutation(order)) TESSEL_INVALID_INPUT("permutation", 0, "not a permutation");
    Permutation position(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<size_type>(i);
    return position;
}

template <typename V, typename I>
Csr<V, I> permute(const Csr<V, I>& a, const Permutation& row_order, const Permutation& col_order) {
    const Permutation rows = row_order.empty() ? identity_permutation(a.rows()) : row_order;
    const Permutation col_position =
        col_order.empty() ? identity_permutation(a.cols()) : inverse(col_order);
    if (static_cast<size_type>(rows.size()) != a.rows() || !is_permutation(rows))
        TESSEL_INVALID_INPUT("permutation", 0, "row order is not a permutation of the rows");
    if (static_cast<size_type>(col_position.size()) != a.cols())
        TESSEL_INVALID_INPUT("permutation", 0, "column order is not a permutation of the columns");
    std::vector<size_type> ptr{0};
    std::vector<I> col;
    std::vector<V> val;
    col.reserve(a.nnz());
    val.reserve(a.nnz());
    std::vector<std::pair<I, V>> row;
    for (size_type i = 0; i < a.rows(); ++i) {
        const size_type old = rows[i];
        row.clear();
        for (size_type e = a.row_ptr()[old]; e < a.row_ptr()[old + 1]; ++e)
            row.emplace_back(static_cast<I>(col_position[a.col_idx()[e]]), a.values()[e]);
        std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [c, v] : row) {
            col.push_back(c);
            val.push_back(v);
        }
        ptr.push_back(static_cast<size_type>(col.size()));
    }
    return Csr<V, I>(a.rows(), a.cols(), std::move(ptr), std::move(col), std::move(val), "permuted");
}

#define TESSEL_INSTANTIATE(V, I) \
    template Csr<V, I> permute(const Csr<V, I>&, const Permutation&, const Permutation&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::partition
