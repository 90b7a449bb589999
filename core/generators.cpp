// Built-in sparse matrix generators.
#include "core/generators.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "core/instantiate.hpp"

namespace tessel::generate {

namespace {

// Distinct random columns for one row (sorted), drawn with a per-row seeded engine so that
// rows can be built in parallel and the result does not depend on the thread count.
template <typename I>
void random_columns(size_type cols, size_type count, std::uint64_t seed, std::vector<I>& out) {
    std::mt19937_64 rng(seed);
    count = std::min(count, cols);
    out.clear();
    if (count * 2 > cols) {  // dense row: pick by selection sampling
        for (size_type c = 0, left = count; c < cols && left > 0; ++c)
            if (std::uniform_int_distribution<size_type>(0, cols - c - 1)(rng) < left) {
                out.push_back(static_cast<I>(c));
                --left;
            }
        return;
    }
    std::unordered_set<size_type> seen;
    std::uniform_int_distribution<size_type> pick(0, cols - 1);
    while (static_cast<size_type>(out.size()) < count) {
        const size_type c = pick(rng);
        if (seen.insert(c).second) out.push_back(static_cast<I>(c));
    }
    std::sort(out.begin(), out.end());
}

template <typename V, typename I>
Csr<V, I> from_row_lengths(size_type rows, size_type cols, const std::vector<size_type>& length,
                           std::uint64_t seed) {
    std::vector<size_type> row_ptr(rows + 1, 0);
    for (size_type i = 0; i < rows; ++i) row_ptr[i + 1] = row_ptr[i] + std::min(length[i], cols);
    std::vector<I> col_idx(row_ptr.back());
    std::vector<V> values(row_ptr.back());
#pragma omp parallel
    {
        std::vector<I> row;
#pragma omp for schedule(dynamic, 256)
        for (size_type i = 0; i < rows; ++i) {
            const std::uint64_t row_seed = seed * 0x9E3779B97F4A7C15ull + std::uint64_t(i);
            random_columns<I>(cols, row_ptr[i + 1] - row_ptr[i], row_seed, row);
            std::mt19937_64 rng(row_seed ^ 0xABCDEFull);
            std::uniform_real_distribution<double> value(-1.0, 1.0);
            for (size_type e = 0; e < size_type(row.size()); ++e) {
                col_idx[row_ptr[i] + e] = row[e];
                double v = value(rng);
                values[row_ptr[i] + e] = static_cast<V>(v == 0.0 ? 0.5 : v);
            }
        }
    }
    return Csr<V, I>(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values),
                     "generator");
}

}  // namespace

template <typename V, typename I>
Csr<V, I> stencil_2d(size_type n) {
    std::vector<size_type> row_ptr{0};
    std::vector<I> col_idx;
    std::vector<V> values;
    for (size_type y = 0; y < n; ++y)
        for (size_type x = 0; x < n; ++x) {
            const size_type i = y * n + x;
            if (y > 0) col_idx.push_back(I(i - n)), values.push_back(V(-1));
            if (x > 0) col_idx.push_back(I(i - 1)), values.push_back(V(-1));
            col_idx.push_back(I(i)), values.push_back(V(4));
            if (x + 1 < n) col_idx.push_back(I(i + 1)), values.push_back(V(-1));
            if (y + 1 < n) col_idx.push_back(I(i + n)), values.push_back(V(-1));
            row_ptr.push_back(static_cast<size_type>(col_idx.size()));
        }
    return Csr<V, I>(n * n, n * n, std::move(row_ptr), std::move(col_idx), std::move(values),
                     "stencil_2d");
}

template <typename V, typename I>
Csr<V, I> random_uniform(size_type rows, size_type cols, size_type per_row, std::uint64_t seed) {
    return from_row_lengths<V, I>(rows, cols, std::vector<size_type>(rows, per_row), seed);
}

template <typename V, typename I>
Csr<V, I> power_law(size_type rows, size_type cols, double mean_per_row, double alpha,
                    std::uint64_t seed) {
    // Lengths x_min·u^(-1/(alpha-1)) have a Pareto tail; x_min is set for the wanted mean.
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(1e-9, 1.0);
    const double x_min = mean_per_row * (alpha - 2.0 > 0.1 ? (alpha - 2.0) / (alpha - 1.0) : 0.5);
    std::vector<size_type> length(rows);
    for (auto& len : length)
        len = std::max<size_type>(
            1, std::min<size_type>(cols, size_type(x_min * std::pow(u(rng), -1.0 / (alpha - 1.0)))));
    if (rows > 0) length[0] = std::min<size_type>(cols, size_type(64 * mean_per_row));
    return from_row_lengths<V, I>(rows, cols, length, seed);
}

template <typename V, typename I>
Csr<V, I> banded(size_type n, size_type half_width) {
    std::vector<size_type> row_ptr{0};
    std::vector<I> col_idx;
    std::vector<V> values;
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = std::max<size_type>(0, i - half_width);
             j <= std::min(n - 1, i + half_width); ++j) {
            col_idx.push_back(static_cast<I>(j));
            values.push_back(i == j ? V(2 * half_width + 1) : V(-1) / V(1 + (i > j ? i - j : j - i)));
        }
        row_ptr.push_back(static_cast<size_type>(col_idx.size()));
    }
    return Csr<V, I>(n, n, std::move(row_ptr), std::move(col_idx), std::move(values), "banded");
}

template <typename V, typename I>
Csr<V, I> random_with_empty_rows(size_type rows, size_type cols, size_type mean,
                                 double empty_fraction, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<size_type> len(1, std::max<size_type>(1, 2 * mean));
    std::vector<size_type> length(rows);
    for (auto& l : length) l = u(rng) < empty_fraction ? 0 : len(rng);
    return from_row_lengths<V, I>(rows, cols, length, seed);
}

template <typename V>
DenseMatrix<V> random_dense(size_type rows, size_type cols, Layout layout, std::uint64_t seed) {
    DenseMatrix<V> m(rows, cols, layout);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    for (size_type e = 0; e < m.size(); ++e) m.data()[e] = static_cast<V>(value(rng));
    return m;
}

#define TESSEL_INSTANTIATE(V, I)                                                             \
    template Csr<V, I> stencil_2d<V, I>(size_type);                                          \
    template Csr<V, I> random_uniform<V, I>(size_type, size_type, size_type, std::uint64_t); \
    template Csr<V, I> power_law<V, I>(size_type, size_type, double, double, std::uint64_t); \
    template Csr<V, I> banded<V, I>(size_type, size_type);                                   \
    template Csr<V, I> random_with_empty_rows<V, I>(size_type, size_type, size_type, double, \
                                                    std::uint64_t);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE
template DenseMatrix<float> random_dense<float>(size_type, size_type, Layout, std::uint64_t);
template DenseMatrix<double> random_dense<double>(size_type, size_type, Layout, std::uint64_t);

}  // namespace tessel::generate
