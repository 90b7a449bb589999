// The column kernels of iterative solvers on the host (core/kernels/column_kernels.hpp): OpenMP
// over rows, fp64 sums in fixed row blocks so that the bits do not depend on the threads.
#include "core/kernels/column_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace tessel::cpu {

namespace {

// Rows per partial sum: the sums are combined in row-block order, whatever the threads.
constexpr size_type reduction_block = 1024;

}  // namespace

template <typename V>
void column_dots(DenseView<const V> a, DenseView<const V> b, double* out) {
    column::check_same_shape("column_dots", a, b);
    const size_type rows = a.rows, k = a.cols;
    const size_type blocks = (rows + reduction_block - 1) / reduction_block;
    std::vector<double> partial(static_cast<std::size_t>(blocks * k), 0.0);
#pragma omp parallel for schedule(static)
    for (size_type blk = 0; blk < blocks; ++blk) {
        double* acc = partial.data() + blk * k;
        const size_type end = std::min(rows, (blk + 1) * reduction_block);
        for (size_type i = blk * reduction_block; i < end; ++i) {
            const V* pa = a.data + i * a.ld;
            const V* pb = b.data + i * b.ld;
            for (size_type j = 0; j < k; ++j) acc[j] += double(pa[j]) * double(pb[j]);
        }
    }
    std::fill(out, out + k, 0.0);
    for (size_type blk = 0; blk < blocks; ++blk)
        for (size_type j = 0; j < k; ++j) out[j] += partial[blk * k + j];
}

template <typename V>
void axpy_columns(DenseView<V> y, const double* alpha, double sign, DenseView<const V> x) {
    column::check_same_shape("axpy_columns", y, x);
    const size_type rows = y.rows, k = y.cols;
    std::vector<V> a(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) a[j] = V(sign * alpha[j]);
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rows; ++i) {
        V* py = y.data + i * y.ld;
        const V* px = x.data + i * x.ld;
        for (size_type j = 0; j < k; ++j) py[j] += a[j] * px[j];
    }
}

template <typename V>
void xpay_columns(DenseView<V> p, const double* beta, DenseView<const V> s, const double* mask) {
    column::check_same_shape("xpay_columns", p, s);
    const size_type rows = p.rows, k = p.cols;
    std::vector<V> b(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) b[j] = V(beta[j]);
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rows; ++i) {
        V* pp = p.data + i * p.ld;
        const V* ps = s.data + i * s.ld;
        for (size_type j = 0; j < k; ++j)
            if (mask[j] != 0) pp[j] = ps[j] + b[j] * pp[j];
    }
}

template <typename V>
void scale_rows(DenseView<const V> r, const V* weight, DenseView<V> q) {
    column::check_same_shape("scale_rows", r, q);
    const size_type rows = r.rows, k = r.cols;
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rows; ++i)
        for (size_type j = 0; j < k; ++j) q.data[i * q.ld + j] = weight[i] * r.data[i * r.ld + j];
}

template <typename V>
void weighted_update(DenseView<V> x, const V* weight, DenseView<const V> s, const double* mask, bool nonneg) {
    column::check_same_shape("weighted_update", x, s);
    const size_type rows = x.rows, k = x.cols;
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rows; ++i)
        for (size_type j = 0; j < k; ++j) {
            if (mask[j] == 0) continue;
            const V v = x.data[i * x.ld + j] + weight[i] * s.data[i * s.ld + j];
            x.data[i * x.ld + j] = nonneg && v < V{0} ? V{0} : v;
        }
}

template <typename V>
void residual_columns(DenseView<V> r, DenseView<const V> b, DenseView<const V> q, const double* mask) {
    column::check_same_shape("residual_columns", r, b);
    column::check_same_shape("residual_columns", r, q);
    const size_type rows = r.rows, k = r.cols;
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rows; ++i)
        for (size_type j = 0; j < k; ++j)
            if (mask[j] != 0) r.data[i * r.ld + j] = b.data[i * b.ld + j] - q.data[i * q.ld + j];
}

void cgls_step_sizes(double* s, size_type k) {
    using namespace column;
    for (size_type j = 0; j < k; ++j) {
        s[alpha * k + j] = 0.0;
        if (s[active * k + j] == 0) continue;
        if (!(s[delta * k + j] > 0)) {  // p is in the null space: nothing more to gain
            s[active * k + j] = 0;
            continue;
        }
        s[alpha * k + j] = s[gamma_norm * k + j] / s[delta * k + j];
    }
}

void cgls_directions(double* s, size_type k) {
    using namespace column;
    for (size_type j = 0; j < k; ++j) {
        s[beta * k + j] = 0.0;
        s[update * k + j] = 0.0;
        if (s[active * k + j] == 0) continue;
        s[beta * k + j] = s[ss * k + j] / s[gamma_norm * k + j];
        s[gamma_norm * k + j] = s[ss * k + j];
        s[update * k + j] = 1.0;
    }
}

void record_residuals(double* s, size_type k, double tol, bool stop_at_zero_gamma) {
    using namespace column;
    for (size_type j = 0; j < k; ++j) {
        if (s[active * k + j] == 0) {
            s[residual * k + j] = -1.0;
            continue;
        }
        const double res = std::sqrt(s[rr * k + j]) / s[bnorm * k + j];
        s[residual * k + j] = res;
        if ((tol > 0 && res < tol) || (stop_at_zero_gamma && s[gamma_norm * k + j] == 0)) s[active * k + j] = 0;
    }
}

#define TESSEL_INSTANTIATE(V)                                                                           \
    template void column_dots(DenseView<const V>, DenseView<const V>, double*);                         \
    template void axpy_columns(DenseView<V>, const double*, double, DenseView<const V>);                \
    template void xpay_columns(DenseView<V>, const double*, DenseView<const V>, const double*);         \
    template void scale_rows(DenseView<const V>, const V*, DenseView<V>);                               \
    template void weighted_update(DenseView<V>, const V*, DenseView<const V>, const double*, bool);    \
    template void residual_columns(DenseView<V>, DenseView<const V>, DenseView<const V>, const double*);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cpu
