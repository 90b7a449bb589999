// Column kernels of the iterative solvers (core/kernels/column_kernels.hpp): the cpu functions on
// hand-computed cases, and the cuda kernels against the cpu functions on blocks taller than 1024
// rows (several partial sums, the last one short), wider than 32 columns (two column tiles of the
// dot kernel), with padded leading dimensions and inactive columns.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "core/kernels/column_kernels.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/device_spmm.hpp"
#endif

using namespace tessel;

namespace {

// A rows x k block stored with leading dimension ld >= k (the padding holds NaN: never read).
struct Block {
    size_type rows, k, ld;
    std::vector<float> data;
    Block(size_type rows_, size_type k_, size_type ld_, std::mt19937& rng) : rows(rows_), k(k_), ld(ld_) {
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        data.assign(std::size_t(rows * ld), std::nanf(""));
        for (size_type i = 0; i < rows; ++i)
            for (size_type j = 0; j < k; ++j) data[std::size_t(i * ld + j)] = u(rng);
    }
    DenseView<float> view() { return {data.data(), rows, k, Layout::row_major, ld}; }
    DenseView<const float> cview() const { return {data.data(), rows, k, Layout::row_major, ld}; }
};

// The per-column scalars of k columns with a mix of active, stopped and degenerate columns.
std::vector<double> make_scalars(size_type k) {
    using namespace column;
    std::vector<double> s(std::size_t(column::count * k), 0.0);
    for (size_type j = 0; j < k; ++j) {
        s[gamma_norm * k + j] = j % 5 == 0 ? 0.0 : 1.0 + double(j);
        s[delta * k + j] = j % 7 == 0 ? 0.0 : 2.0 + 0.5 * double(j);
        s[rr * k + j] = 0.25 * double(j + 1);
        s[ss * k + j] = 0.5 * double(j);
        s[bnorm * k + j] = 3.0 + double(j);
        s[active * k + j] = j % 3 == 1 ? 0.0 : 1.0;
    }
    return s;
}

}  // namespace

TEST_CASE("cpu column kernels on a hand-computed case", "[core][columns]") {
    // 3 rows x 2 columns: a = [1 2; 3 4; 5 6], b = [1 1; 0 1; 2 0].
    std::vector<float> a{1, 2, 3, 4, 5, 6}, b{1, 1, 0, 1, 2, 0};
    DenseView<float> av(a.data(), 3, 2), bv(b.data(), 3, 2);
    double dots[2];
    cpu::column_dots(DenseView<const float>(av), DenseView<const float>(bv), dots);
    CHECK(dots[0] == 11.0);
    CHECK(dots[1] == 6.0);
    const double alpha[2] = {2.0, 3.0}, mask[2] = {1.0, 0.0};
    cpu::axpy_columns(av, alpha, -1.0, DenseView<const float>(bv));  // a -= alpha·b
    CHECK(a == std::vector<float>{-1, -1, 3, 1, 1, 6});
    cpu::xpay_columns(av, alpha, DenseView<const float>(bv), mask);  // column 0: a = b + 2a
    CHECK(a == std::vector<float>{-1, -1, 6, 1, 4, 6});
    const float w[3] = {1, 0.5f, -1};
    std::vector<float> q(6);
    cpu::scale_rows(DenseView<const float>(av), w, DenseView<float>(q.data(), 3, 2));
    CHECK(q == std::vector<float>{-1, -1, 3, 0.5f, -4, -6});
    cpu::weighted_update(av, w, DenseView<const float>(bv), mask, true);  // column 0: max(0, a + w·b)
    CHECK(a == std::vector<float>{0, -1, 6, 1, 2, 6});
    cpu::residual_columns(av, DenseView<const float>(bv), DenseView<const float>(DenseView<float>(q.data(), 3, 2)), mask);
    CHECK(a == std::vector<float>{2, -1, -3, 1, 6, 6});
}

TEST_CASE("cpu CGLS scalar steps", "[core][columns]") {
    using namespace column;
    const size_type k = 3;
    std::vector<double> s(std::size_t(count * k), 0.0);
    // column 0: active, δ > 0; column 1: active, δ = 0 (stops); column 2: stopped.
    s[gamma_norm * k + 0] = 4, s[delta * k + 0] = 2, s[active * k + 0] = 1;
    s[gamma_norm * k + 1] = 4, s[delta * k + 1] = 0, s[active * k + 1] = 1;
    s[gamma_norm * k + 2] = 4, s[delta * k + 2] = 1, s[active * k + 2] = 0;
    cpu::cgls_step_sizes(s.data(), k);
    CHECK(s[alpha * k + 0] == 2.0);
    CHECK(s[alpha * k + 1] == 0.0);
    CHECK(s[active * k + 1] == 0.0);
    CHECK(s[alpha * k + 2] == 0.0);
    s[ss * k + 0] = 1;
    cpu::cgls_directions(s.data(), k);
    CHECK(s[beta * k + 0] == 0.25);
    CHECK(s[gamma_norm * k + 0] == 1.0);
    CHECK(s[update * k + 0] == 1.0);
    CHECK(s[update * k + 1] == 0.0);
    s[rr * k + 0] = 0.01, s[bnorm * k + 0] = 1;
    cpu::record_residuals(s.data(), k, 0.2, true);  // 0.1 < tol: column 0 stops
    CHECK(s[residual * k + 0] == Approx(0.1));
    CHECK(s[active * k + 0] == 0.0);
    CHECK(s[residual * k + 1] == -1.0);
}

#if defined(TESSEL_HAVE_CUDA)

TEST_CASE("cuda column kernels equal the cpu ones", "[cuda][columns]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    std::mt19937 rng(11);
    const size_type rows = 2 * 1024 + 77, k = 37, ld = 40;
    Block a(rows, k, ld, rng), b(rows, k, ld, rng), c(rows, k, k, rng);
    std::vector<float> weight(static_cast<std::size_t>(rows));
    for (auto& w : weight) w = std::uniform_real_distribution<float>(0.0f, 2.0f)(rng);
    std::vector<double> scalars = make_scalars(k);
    const double* alpha = scalars.data() + column::alpha * k;
    const double* mask = scalars.data() + column::active * k;
    for (size_type j = 0; j < k; ++j) scalars[column::alpha * k + j] = 0.1 * double(j) - 1.0;

    auto upload = [](const Block& m) { return cuda::DeviceBuffer<float>(m.data.data(), size_type(m.data.size())); };
    auto dview = [](cuda::DeviceBuffer<float>& d, const Block& m) {
        return DenseView<float>(d.data(), m.rows, m.k, Layout::row_major, m.ld);
    };
    cuda::DeviceBuffer<float> da = upload(a), db = upload(b), dc = upload(c), dw(weight.data(), rows);
    cuda::DeviceBuffer<double> ds(scalars.data(), size_type(scalars.size()));
    const double* dalpha = ds.data() + column::alpha * k;
    const double* dmask = ds.data() + column::active * k;
    auto same = [&](cuda::DeviceBuffer<float>& d, const Block& m) {
        std::vector<float> got(m.data.size());
        d.download(got.data(), d.size());
        double worst = 0;
        for (size_type i = 0; i < m.rows; ++i)
            for (size_type j = 0; j < m.k; ++j) {
                const double want = m.data[std::size_t(i * m.ld + j)], have = got[std::size_t(i * m.ld + j)];
                worst = std::max(worst, std::abs(want - have) / std::max(1.0, std::abs(want)));
            }
        return worst;
    };

    SECTION("dots") {
        std::vector<double> want(static_cast<std::size_t>(k)), got(static_cast<std::size_t>(k));
        cpu::column_dots(a.cview(), b.cview(), want.data());
        cuda::DeviceBuffer<double> out(k);
        cuda::device::column_dots(DenseView<const float>(dview(da, a)), DenseView<const float>(dview(db, b)), out.data(),
                                  nullptr);
        out.download(got.data(), k);
        for (size_type j = 0; j < k; ++j) CHECK(got[std::size_t(j)] == Approx(want[std::size_t(j)]).epsilon(1e-12));
    }
    SECTION("axpy, xpay, SIRT's update and residual, copy") {
        cpu::axpy_columns(a.view(), alpha, -1.0, b.cview());
        cuda::device::axpy_columns(dview(da, a), dalpha, -1.0, DenseView<const float>(dview(db, b)), nullptr);
        CHECK(same(da, a) < 1e-6);
        cpu::xpay_columns(a.view(), alpha, b.cview(), mask);
        cuda::device::xpay_columns(dview(da, a), dalpha, DenseView<const float>(dview(db, b)), dmask, nullptr);
        CHECK(same(da, a) < 1e-6);
        cpu::weighted_update(a.view(), weight.data(), b.cview(), mask, true);
        cuda::device::weighted_update(dview(da, a), dw.data(), DenseView<const float>(dview(db, b)), dmask, true, nullptr);
        CHECK(same(da, a) < 1e-6);
        cpu::residual_columns(a.view(), b.cview(), c.cview(), mask);
        cuda::device::residual_columns(dview(da, a), DenseView<const float>(dview(db, b)),
                                       DenseView<const float>(dview(dc, c)), dmask, nullptr);
        CHECK(same(da, a) < 1e-6);
        cpu::scale_rows(a.cview(), weight.data(), c.view());
        cuda::device::scale_rows(DenseView<const float>(dview(da, a)), dw.data(), dview(dc, c), nullptr);
        CHECK(same(dc, c) < 1e-6);
        cuda::device::copy_columns(DenseView<const float>(dview(db, b)), dview(da, a), nullptr);
        CHECK(same(da, b) == 0.0);
    }
    SECTION("CGLS scalar steps") {
        std::vector<double> got(scalars.size());
        cpu::cgls_step_sizes(scalars.data(), k);
        cuda::device::cgls_step_sizes(ds.data(), k, nullptr);
        cpu::cgls_directions(scalars.data(), k);
        cuda::device::cgls_directions(ds.data(), k, nullptr);
        cpu::record_residuals(scalars.data(), k, 0.3, true);
        cuda::device::record_residuals(ds.data(), k, 0.3, true, nullptr);
        ds.download(got.data(), size_type(got.size()));
        CHECK(got == scalars);
    }
}

#endif
