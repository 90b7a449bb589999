// Trusted results and the comparison of kernel results against them.
#include "bench/spmm/check.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/kernels/spmm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::bench {

template <typename V>
std::vector<double> row_abs_sums(const Csr<V, Index>& a) {
    std::vector<double> sums(static_cast<std::size_t>(a.rows()), 0.0);
    const auto& rp = a.row_ptr();
    const auto& va = a.values();
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < a.rows(); ++i) {
        double s = 0;
        for (size_type e = rp[i]; e < rp[i + 1]; ++e) s += std::fabs(double(va[e]));
        sums[i] = s;
    }
    return sums;
}

namespace {

template <typename V>
CheckResult compare_rows(DenseView<const V> c, DenseView<const V> trusted,
                         const std::vector<double>& row_scale, double rtol,
                         const std::vector<size_type>& c_rows,
                         const std::vector<size_type>& t_rows) {
    CheckResult result;
    const size_type n = static_cast<size_type>(c_rows.size());
    result.rows_checked = n;
    double worst = -1;
    size_type worst_r = -1, worst_c = -1;
    bool ok = true;
#pragma omp parallel
    {
        double my_worst = -1;
        size_type my_r = -1, my_c = -1;
        bool my_ok = true;
#pragma omp for schedule(static) nowait
        for (size_type r = 0; r < n; ++r) {
            const size_type ci = c_rows[r], ti = t_rows[r];
            for (size_type j = 0; j < c.cols; ++j) {
                const double x = double(c(ci, j)), t = double(trusted(ti, j));
                const double denom = std::fabs(t) + row_scale[ti];
                double err = std::fabs(x - t) / (denom > 0 ? denom : 1.0);
                if (std::isnan(err)) err = INFINITY;
                if (!(err <= rtol)) my_ok = false;
                if (err > my_worst) my_worst = err, my_r = ti, my_c = j;
            }
        }
#pragma omp critical
        {
            ok = ok && my_ok;
            if (my_worst > worst) worst = my_worst, worst_r = my_r, worst_c = my_c;
        }
    }
    if (worst < 0) worst = 0;
    result.ok = ok;
    result.max_error = worst;
    result.worst_row = worst_r;
    result.worst_col = worst_c;
    return result;
}

}  // namespace

template <typename V>
CheckResult compare(DenseView<const V> c, DenseView<const V> trusted,
                    const std::vector<double>& row_scale, double rtol) {
    std::vector<size_type> rows(static_cast<std::size_t>(c.rows));
    for (size_type i = 0; i < c.rows; ++i) rows[i] = i;
    return compare_rows(c, trusted, row_scale, rtol, rows, rows);
}

template <typename V>
Trusted<V> compute_trusted(const Csr<V, Index>& a, DenseView<const V> b,
                           const std::vector<double>& row_scale, bool use_reference,
                           size_type sample_rows) {
    Trusted<V> t;
    t.c = DenseMatrix<V>(a.rows(), b.cols);
    Timer timer;
    if (use_reference) {
        reference::spmm(a, b, t.c.view());
        t.source = "reference";
        t.seconds = timer.seconds();
        return t;
    }
    cpu::spmm_row_split(a, b, t.c.view());
    t.source = "row-split";

    // Sampled rows: the first, the last, the longest, and uniform random ones.
    std::vector<size_type> rows{0, a.rows() - 1};
    size_type longest = 0;
    for (size_type i = 1; i < a.rows(); ++i)
        if (a.row_nnz(i) > a.row_nnz(longest)) longest = i;
    rows.push_back(longest);
    std::mt19937_64 rng(12345);
    std::uniform_int_distribution<size_type> pick(0, a.rows() - 1);
    for (size_type s = 0; s < sample_rows; ++s) rows.push_back(pick(rng));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());

    // The sampled rows as their own CSR matrix, multiplied by the reference.
    std::vector<size_type> ptr{0};
    std::vector<Index> col;
    std::vector<V> val;
    for (size_type i : rows) {
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            col.push_back(a.col_idx()[e]);
            val.push_back(a.values()[e]);
        }
        ptr.push_back(static_cast<size_type>(col.size()));
    }
    const size_type n = static_cast<size_type>(rows.size());
    const Csr<V, Index> sub(n, a.cols(), std::move(ptr), std::move(col), std::move(val),
                            "sampled rows");
    DenseMatrix<V> expected(n, b.cols);
    reference::spmm(sub, b, expected.view());

    // Compare row rows[r] of the row-split result with row r of the reference's.
    std::vector<double> scale(static_cast<std::size_t>(n));
    std::vector<size_type> c_rows(rows), t_rows(static_cast<std::size_t>(n));
    for (size_type r = 0; r < n; ++r) scale[r] = row_scale[rows[r]], t_rows[r] = r;
    t.self_check = compare_rows<V>(DenseView<const V>(t.c.view()),
                                   DenseView<const V>(expected.view()), scale,
                                   check_tolerance<V>(), c_rows, t_rows);
    if (t.self_check.worst_row >= 0) t.self_check.worst_row = rows[t.self_check.worst_row];
    t.seconds = timer.seconds();
    return t;
}

#define TESSEL_BENCH_INSTANTIATE(V)                                                           \
    template std::vector<double> row_abs_sums(const Csr<V, Index>&);                         \
    template CheckResult compare(DenseView<const V>, DenseView<const V>,                      \
                                 const std::vector<double>&, double);                         \
    template Trusted<V> compute_trusted(const Csr<V, Index>&, DenseView<const V>,             \
                                        const std::vector<double>&, bool, size_type);
TESSEL_BENCH_INSTANTIATE(float)
TESSEL_BENCH_INSTANTIATE(double)
#undef TESSEL_BENCH_INSTANTIATE

}  // namespace tessel::bench
