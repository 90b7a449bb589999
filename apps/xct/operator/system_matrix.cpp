// Two-pass parallel construction of A and the parallel transpose.
#include "apps/xct/operator/system_matrix.hpp"

#include <omp.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "apps/xct/geometry/siddon.hpp"
#include "core/error.hpp"

namespace tessel::xct {

namespace {

// Rows of a few hundred entries each: dynamic chunks keep the threads balanced.
constexpr size_type row_chunk = 64;

}  // namespace

std::vector<size_type> count_rows(const Geometry& g, const Ordering& o, size_type first, size_type last) {
    TESSEL_ENSURE_DIMS(0 <= first && first <= last && last <= g.num_rays(), "count_rows: bad ray range");
    std::vector<size_type> counts(static_cast<std::size_t>(last - first));
#pragma omp parallel for schedule(dynamic, row_chunk)
    for (size_type i = first; i < last; ++i) {
        const size_type ray = o.rays[i];
        counts[i - first] = count_ray(g.n, g.theta[ray / g.num_rho], g.rho(ray % g.num_rho));
    }
    return counts;
}

template <typename V>
Csr<V, Index> build_rows(const Geometry& g, const Ordering& o, size_type first, size_type last,
                         std::span<const size_type> counts) {
    TESSEL_ENSURE_DIMS(0 <= first && first <= last && last <= g.num_rays(), "build_rows: bad ray range");
    const size_type rows = last - first;
    std::vector<size_type> own;
    if (counts.empty()) {
        own = count_rows(g, o, first, last);
        counts = own;
    }
    TESSEL_ENSURE_DIMS(static_cast<size_type>(counts.size()) == rows, "build_rows: one count per row needed");
    std::vector<size_type> row_ptr(static_cast<std::size_t>(rows + 1), 0);
    std::partial_sum(counts.begin(), counts.end(), row_ptr.begin() + 1);
    const size_type nnz = row_ptr.back();
    std::vector<Index> col(static_cast<std::size_t>(nnz));
    std::vector<V> val(static_cast<std::size_t>(nnz));
    bool mismatch = false;
#pragma omp parallel for schedule(dynamic, row_chunk)
    for (size_type i = 0; i < rows; ++i) {
        const size_type ray = o.rays[first + i];
        size_type e = row_ptr[i];
        const size_type end = row_ptr[i + 1];
        // In order along the ray (deterministic); the count pass walked the same line with the
        // same arithmetic, so the sizes agree.
        trace_ray(g.n, g.theta[ray / g.num_rho], g.rho(ray % g.num_rho), [&](size_type pixel, double length) {
            if (e < end) {
                col[e] = static_cast<Index>(o.pixel_position[pixel]);
                val[e] = static_cast<V>(length);
            }
            ++e;
        });
        if (e != end) {
#pragma omp atomic write
            mismatch = true;
            for (size_type f = std::min(e, end); f < end; ++f) {
                col[f] = 0;
                val[f] = V{0};
            }
        }
    }
    if (mismatch)
        TESSEL_THROW(Error, "build_rows: the given row counts differ from the traced rays");
    return Csr<V, Index>(rows, g.num_pixels(), std::move(row_ptr), std::move(col), std::move(val),
                         "projection matrix");
}

template <typename V, typename I>
Csr<V, I> transpose_parallel(const Csr<V, I>& a) {
    const size_type m = a.rows(), n = a.cols(), nnz = a.nnz();
    const int threads = std::max(1, omp_get_max_threads());
    const auto& rp = a.row_ptr();
    const I* ci = a.col_idx().data();
    const V* va = a.values().data();
    // Row ranges of about equal nonzeros, one per thread.
    std::vector<size_type> range(threads + 1, m);
    range[0] = 0;
    for (int t = 1; t < threads; ++t)
        range[t] = std::upper_bound(rp.begin(), rp.end(), nnz * t / threads) - rp.begin() - 1;
    for (int t = 1; t <= threads; ++t) range[t] = std::max(range[t], range[t - 1]);
    std::vector<size_type> count(static_cast<std::size_t>(threads) * (n + 1), 0);
    std::vector<size_type> row_ptr(static_cast<std::size_t>(n + 1), 0);
    std::vector<I> col(static_cast<std::size_t>(nnz));
    std::vector<V> val(static_cast<std::size_t>(nnz));
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        size_type* mine = count.data() + static_cast<size_type>(t) * (n + 1);
        for (size_type e = rp[range[t]]; e < rp[range[t + 1]]; ++e) ++mine[ci[e]];
#pragma omp barrier
        // Column j of thread t starts after column j of threads < t; columns in order.
#pragma omp for schedule(static)
        for (size_type j = 0; j < n; ++j) {
            size_type sum = 0;
            for (int u = 0; u < threads; ++u) {
                size_type& c = count[static_cast<size_type>(u) * (n + 1) + j];
                const size_type here = c;
                c = sum;
                sum += here;
            }
            row_ptr[j + 1] = sum;
        }
#pragma omp single
        std::partial_sum(row_ptr.begin(), row_ptr.end(), row_ptr.begin());
#pragma omp for schedule(static)
        for (size_type j = 0; j < n; ++j)
            for (int u = 0; u < threads; ++u) count[static_cast<size_type>(u) * (n + 1) + j] += row_ptr[j];
        for (size_type i = range[t]; i < range[t + 1]; ++i)
            for (size_type e = rp[i]; e < rp[i + 1]; ++e) {
                const size_type pos = mine[ci[e]]++;
                col[pos] = static_cast<I>(i);
                val[pos] = va[e];
            }
    }
    return Csr<V, I>(n, m, std::move(row_ptr), std::move(col), std::move(val), "transpose");
}

size_type estimate_nnz(const Geometry& g) {
    size_type total = 0;
    const size_type rays = g.num_rays();
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (size_type r = 0; r < rays; ++r) total += bound_ray(g.n, g.theta[r / g.num_rho], g.rho(r % g.num_rho));
    return total;
}

template Csr<float, Index> build_rows(const Geometry&, const Ordering&, size_type, size_type,
                                      std::span<const size_type>);
template Csr<double, Index> build_rows(const Geometry&, const Ordering&, size_type, size_type,
                                       std::span<const size_type>);
template Csr<float, std::int32_t> transpose_parallel(const Csr<float, std::int32_t>&);
template Csr<double, std::int32_t> transpose_parallel(const Csr<double, std::int32_t>&);
template Csr<float, std::int64_t> transpose_parallel(const Csr<float, std::int64_t>&);
template Csr<double, std::int64_t> transpose_parallel(const Csr<double, std::int64_t>&);

}  // namespace tessel::xct
