// Balanced k-means row clustering by recursive 2-means bisection on random-projection sketches.
#include "partition/kmeans_reorder.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/instantiate.hpp"

namespace tessel::partition {

namespace {

// Recursive balanced 2-means on the normalised sparse rows of `a`.
template <typename V, typename I>
struct Bisection {
    const Csr<V, I>& a;
    size_type cluster;
    int iterations;
    std::mt19937_64 rng;
    std::vector<size_type>& order;
    std::vector<size_type>& offsets;
    std::vector<double> c0, c1;  // dense centroids over the columns, cleared after use
    std::vector<I> touched;      // columns where c0 or c1 may be non-zero

    double weight(size_type row) const {
        const size_type len = a.row_nnz(row);
        return len ? 1.0 / std::sqrt(double(len)) : 0.0;
    }
    double dot(size_type row, const std::vector<double>& c) const {
        double s = 0;
        for (size_type e = a.row_ptr()[row]; e < a.row_ptr()[row + 1]; ++e) s += c[a.col_idx()[e]];
        return s * weight(row);
    }
    void clear() {
        for (I j : touched) c0[j] = c1[j] = 0.0;
        touched.clear();
    }
    // c := mean of the rows order[b .. e), returns ‖c‖².
    double mean(std::vector<double>& c, size_type b, size_type e) {
        const double scale = 1.0 / double(std::max<size_type>(1, e - b));
        for (size_type r = b; r < e; ++r) {
            const size_type row = order[r];
            const double w = weight(row) * scale;
            for (size_type k = a.row_ptr()[row]; k < a.row_ptr()[row + 1]; ++k) {
                c[a.col_idx()[k]] += w;
                touched.push_back(a.col_idx()[k]);
            }
        }
        double norm = 0;
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        for (I j : touched) norm += c[j] * c[j];
        return norm;
    }
    // The row of order[b .. e) least similar to `row` (smallest cosine; ties: first).
    size_type farthest(size_type b, size_type e, size_type row) {
        for (size_type k = a.row_ptr()[row]; k < a.row_ptr()[row + 1]; ++k) {
            c0[a.col_idx()[k]] += weight(row);
            touched.push_back(a.col_idx()[k]);
        }
        size_type best = order[b];
        double lowest = 2.0;
        for (size_type r = b; r < e; ++r) {
            const double s = dot(order[r], c0);
            if (s < lowest) lowest = s, best = order[r];
        }
        clear();
        return best;
    }

    void split(size_type b, size_type e) {
        const size_type n = e - b;
        if (n <= cluster) {
            offsets.push_back(e);
            return;
        }
        const size_type blocks = (n + cluster - 1) / cluster;
        const size_type left = (blocks + 1) / 2 * cluster;
        const size_type r0 = order[std::uniform_int_distribution<size_type>(b, e - 1)(rng)];
        const size_type s1 = farthest(b, e, r0);
        const size_type s0 = farthest(b, e, s1);
        // Seeds: the two far-apart rows as the first centroids.
        for (auto [row, c] : {std::pair{s0, &c0}, std::pair{s1, &c1}})
            for (size_type k = a.row_ptr()[row]; k < a.row_ptr()[row + 1]; ++k) {
                (*c)[a.col_idx()[k]] += weight(row);
                touched.push_back(a.col_idx()[k]);
            }
        double n0 = a.row_nnz(s0) ? 1.0 : 0.0, n1 = a.row_nnz(s1) ? 1.0 : 0.0;
        std::vector<std::pair<double, size_type>> score(n);
        for (int it = 0; it < iterations; ++it) {
            for (size_type r = b; r < e; ++r) {
                const size_type row = order[r];
                score[r - b] = {2.0 * (dot(row, c1) - dot(row, c0)) + n0 - n1, row};
            }
            clear();
            // Balanced assignment: the `left` rows closest to c0 relative to c1; ties by row.
            std::nth_element(score.begin(), score.begin() + left, score.end());
            for (size_type r = 0; r < n; ++r) order[b + r] = score[r].second;
            std::sort(order.begin() + b, order.begin() + b + left);
            std::sort(order.begin() + b + left, order.begin() + e);
            if (it + 1 == iterations) break;
            n0 = mean(c0, b, b + left);
            n1 = mean(c1, b + left, e);
        }
        split(b, b + left);
        split(b + left, e);
    }
};

}  // namespace

template <typename V, typename I>
RowClustering kmeans_row_order(const Csr<V, I>& a, const KmeansOptions& options) {
    if (options.cluster_rows < 1 || options.iterations < 1)
        TESSEL_INVALID_INPUT("kmeans", 0, "cluster_rows and iterations must be >= 1");
    RowClustering out;
    out.order = identity_permutation(a.rows());
    out.offsets.push_back(0);
    Bisection<V, I> bisect{a, options.cluster_rows, options.iterations, std::mt19937_64(options.seed),
                           out.order, out.offsets,
                           std::vector<double>(static_cast<std::size_t>(a.cols()), 0.0),
                           std::vector<double>(static_cast<std::size_t>(a.cols()), 0.0), {}};
    if (a.rows() > 0) bisect.split(0, a.rows());
    return out;
}

template <typename V, typename I>
double tiled_ell_reuse(const Csr<V, I>& a, size_type block_rows, size_type buffer_entries) {
    TiledEllConfig config;
    config.block_rows = block_rows;
    config.buffer_entries = buffer_entries;
    return tiled_ell_from_csr(a, config).average_reuse();
}

#define TESSEL_INSTANTIATE(V, I)                                                            \
    template RowClustering kmeans_row_order(const Csr<V, I>&, const KmeansOptions&);       \
    template double tiled_ell_reuse(const Csr<V, I>&, size_type, size_type);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::partition
