// The projection matrices: two-pass build against direct tracing, the parallel transpose,
// orderings, tiled ELL with the reuse metric, and the adjoint test <Ax, y> = <x, Aᵀy>.
#include <catch2/catch.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "apps/xct/geometry/siddon.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/system_matrix.hpp"
#include "apps/xct/solvers/column_ops.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "tests/core/tiled_ell_oracle.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

Geometry small_geometry(size_type n = 32, size_type angles = 45) { return Geometry{n, n, uniform_angles(angles)}; }

template <typename V>
DenseMatrix<V> random_matrix(size_type rows, size_type cols, unsigned seed) {
    DenseMatrix<V> m(rows, cols);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (size_type i = 0; i < m.size(); ++i) m.data()[i] = static_cast<V>(u(rng));
    return m;
}

}  // namespace

TEST_CASE("two-pass rows equal the traced rays, columns in ordered positions", "[xct][operator]") {
    const auto g = small_geometry();
    for (auto kind : {DomainOrder::natural, DomainOrder::hilbert}) {
        const auto o = make_ordering(g, kind, 8);
        const auto a = build_rows<double>(g, o, 0, g.num_rays());
        REQUIRE(a.rows() == g.num_rays());
        REQUIRE(a.cols() == g.num_pixels());
        CHECK(transpose_parallel(a).sorted());  // rows of A follow the ray, rows of Aᵀ are sorted
        for (size_type pos = 0; pos < g.num_rays(); pos += 7) {
            const size_type ray = o.rays[pos];
            const auto entries = trace(g.n, g.theta[ray / g.num_rho], g.rho(ray % g.num_rho));
            REQUIRE(a.row_nnz(pos) == static_cast<size_type>(entries.size()));
            for (const auto& e : entries) {
                const auto begin = a.col_idx().begin() + a.row_ptr()[pos], end = a.col_idx().begin() + a.row_ptr()[pos + 1];
                const auto it = std::find(begin, end, static_cast<Index>(o.pixel_position[e.pixel]));
                REQUIRE(it != end);
                CHECK(a.values()[it - a.col_idx().begin()] == Approx(e.length));
            }
        }
        // A slice of rows equals the same rows of the whole.
        const auto part = build_rows<double>(g, o, 100, 300);
        CHECK(part.nnz() == a.row_ptr()[300] - a.row_ptr()[100]);
        CHECK(std::equal(part.col_idx().begin(), part.col_idx().end(), a.col_idx().begin() + a.row_ptr()[100]));
    }
}

TEST_CASE("the O(1) bound is an upper bound of nnz, tight away from corners", "[xct][operator]") {
    const auto g = small_geometry(64, 96);
    const auto o = make_ordering(g, DomainOrder::natural);
    const auto counts = count_rows(g, o, 0, g.num_rays());
    size_type nnz = 0;
    for (auto c : counts) nnz += c;
    const size_type bound = estimate_nnz(g);
    CHECK(bound >= nnz);
    CHECK(double(bound) < 1.01 * double(nnz));
}

TEST_CASE("parallel transpose equals the serial one for any thread count", "[xct][operator]") {
    const auto g = small_geometry(48, 30);
    const auto o = make_ordering(g, DomainOrder::hilbert, 16);
    const auto a = build_rows<float>(g, o, 0, g.num_rays());
    const auto serial = transpose(a);
    const int threads = omp_get_max_threads();
    for (int t : {1, 2, 3, 5}) {
        omp_set_num_threads(t);
        const auto at = transpose_parallel(a);
        REQUIRE(at.row_ptr() == serial.row_ptr());
        REQUIRE(at.col_idx() == serial.col_idx());
        REQUIRE(at.values() == serial.values());
        // The build itself does not depend on the threads either.
        const auto again = build_rows<float>(g, o, 0, g.num_rays());
        REQUIRE(again.col_idx() == a.col_idx());
        REQUIRE(again.values() == a.values());
    }
    omp_set_num_threads(threads);
}

TEST_CASE("Hilbert orderings are permutations; Hilbert order raises the reuse of tiled ELL", "[xct][operator]") {
    const auto g = small_geometry(64, 96);
    const auto natural = make_ordering(g, DomainOrder::natural);
    const auto hilbert = make_ordering(g, DomainOrder::hilbert, 16);
    CHECK(partition::is_permutation(hilbert.pixels));
    CHECK(partition::is_permutation(hilbert.rays));
    ProjectorOptions options;
    options.tiles = {64, 1024};
    LocalProjector<float> pn(build_rows<float>(g, natural, 0, g.num_rays()), options);
    LocalProjector<float> ph(build_rows<float>(g, hilbert, 0, g.num_rays()), options);
    INFO("reuse natural " << pn.a_tiled()->average_reuse() << " hilbert " << ph.a_tiled()->average_reuse());
    CHECK(ph.a_tiled()->average_reuse() > pn.a_tiled()->average_reuse());
    CHECK(ph.at_tiled()->average_reuse() > pn.at_tiled()->average_reuse());
    const auto d = ph.describe();
    CHECK(d["A"]["nnz"].get<size_type>() == ph.nnz());
}

TEMPLATE_TEST_CASE("adjoint test <Ax, y> = <x, A^T y> holds to rounding", "[xct][operator]", float, double) {
    using V = TestType;
    const auto g = small_geometry(40, 60);
    for (auto kernel : {Kernel::tiled_ell, Kernel::csr})
        for (auto kind : {DomainOrder::natural, DomainOrder::hilbert}) {
            const auto o = make_ordering(g, kind, 8);
            ProjectorOptions options;
            options.kernel = kernel;
            options.tiles = {64, 512};  // several stages per block
            auto op = make_local_projector<V>(g, o, options);
            const size_type k = 5;  // not a register-factor multiple
            auto x = random_matrix<V>(op->pixels(), k, 1);
            auto y = random_matrix<V>(op->rays(), k, 2);
            DenseMatrix<V> ax, aty;
            op->forward(x, ax);
            op->backward(y, aty);
            const auto left = column_dots(ax, y), right = column_dots(x, aty);
            const double eps = std::is_same_v<V, float> ? 1e-5 : 1e-12;
            for (size_type j = 0; j < k; ++j) {
                INFO("kernel " << to_string(kernel) << " order " << to_string(kind) << " column " << j);
                CHECK(left[j] == Approx(right[j]).epsilon(eps));
            }
            CHECK(op->stats().forward_calls == 1);
            CHECK(op->stats().flops == Approx(4.0 * double(op->nnz()) * double(k)));
        }
}

// --transpose scatter: only A is stored and Aᵀ·y runs core's transposed kernel on A's tiles.
TEMPLATE_TEST_CASE("the scatter transpose equals the stored Aᵀ on projection matrices", "[xct][operator][scatter]",
                   float, double) {
    using V = TestType;
    const auto g = small_geometry(40, 60);
    const auto o = make_ordering(g, DomainOrder::hilbert, 8);
    const int threads_before = omp_get_max_threads();
    for (bool half : {false, true}) {
        if (half && !std::is_same_v<V, float>) continue;
        ProjectorOptions stored_options;
        stored_options.tiles = {64, 512};
        stored_options.half_values = half;
        ProjectorOptions scatter_options = stored_options;
        scatter_options.scatter_transpose = true;
        auto stored = make_local_projector<V>(g, o, stored_options);
        auto scatter = make_local_projector<V>(g, o, scatter_options);
        CHECK(scatter->matrix_bytes() * 2 == Approx(stored->matrix_bytes()).epsilon(0.05));
        for (size_type k : {1, 5, 16})
            for (int threads : {1, 2, 3}) {
                omp_set_num_threads(threads);
                auto y = random_matrix<V>(stored->rays(), k, 4);
                DenseMatrix<V> want, got;
                stored->backward(y, want);
                scatter->backward(y, got);
                const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-11;
                double worst = 0;
                for (size_type i = 0; i < want.rows(); ++i)
                    for (size_type j = 0; j < k; ++j)
                        worst = std::max(worst, std::abs(double(got(i, j)) - double(want(i, j))) /
                                                    (1.0 + std::abs(double(want(i, j)))));
                INFO("half " << half << ", k " << k << ", threads " << threads);
                CHECK(worst < tol);
            }
    }
    omp_set_num_threads(threads_before);
}

TEST_CASE("the K columns of one SpMM equal K separate products", "[xct][operator]") {
    const auto g = small_geometry(32, 40);
    const auto o = make_ordering(g, DomainOrder::hilbert, 8);
    auto op = make_local_projector<float>(g, o, {});
    const size_type k = 19;
    auto x = random_matrix<float>(op->pixels(), k, 3);
    DenseMatrix<float> y;
    op->forward(x, y);
    for (size_type j = 0; j < k; j += 6) {
        DenseMatrix<float> xj(op->pixels(), 1), yj;
        for (size_type i = 0; i < op->pixels(); ++i) xj(i, 0) = x(i, j);
        op->forward(xj, yj);
        // Bit for bit: a slice's answer does not depend on the slices beside it.
        for (size_type i = 0; i < op->rays(); ++i) REQUIRE(yj(i, 0) == y(i, j));
    }
}

TEMPLATE_TEST_CASE("core's tiled ELL kernel equals the reference on projection matrices", "[xct][operator][kernel]", float, double) {
    using V = TestType;
    const auto g = small_geometry(37, 41);  // rows that do not divide the blocks
    const auto o = make_ordering(g, DomainOrder::hilbert, 8);
    auto a = build_rows<V>(g, o, 0, g.num_rays());
    // An empty row block and one long row: zero a run of rows.
    const auto at = transpose_parallel(a);
    for (const auto& tiles : {TiledEllConfig{32, 64}, TiledEllConfig{64, 1}, TiledEllConfig{128, 4096},
                              TiledEllConfig{256, 65536}})
        for (const Csr<V, Index>* m : std::initializer_list<const Csr<V, Index>*>{&a, &at}) {
            const auto t = tiled_ell_from_csr(*m, tiles);
            for (size_type k : {1, 2, 3, 16, 33, 70})
                for (int rf : {0, 1, 4, 64}) {
                    if (rf == 1 && k > 3) continue;
                    const auto x = random_matrix<V>(m->cols(), k, 9);
                    DenseMatrix<V> y(m->rows(), k, Layout::row_major, V{-7}), ref(m->rows(), k);
                    cpu::spmm_tiled_ell(t, DenseView<const V>(x.view()), y.view(), Epilogue<V>{}, rf);
                    reference::spmm(*m, DenseView<const V>(x.view()), ref.view());
                    INFO("block rows " << tiles.block_rows << " buffer " << tiles.buffer_entries << " k " << k << " rf " << rf);
                    for (size_type i = 0; i < y.size(); ++i)
                        REQUIRE(double(y.data()[i]) == Approx(double(ref.data()[i])).margin(1e-4).epsilon(1e-5));
                }
        }
    // A leading dimension larger than the columns, and a bad register factor.
    const auto t = tiled_ell_from_csr(a, {64, 512});
    DenseMatrix<V> wide_x(a.cols(), 8, Layout::row_major, V{1}), wide_y(a.rows(), 8), ref(a.rows(), 3);
    cpu::spmm_tiled_ell(t, DenseView<const V>(wide_x.data(), a.cols(), 3, Layout::row_major, 8),
                        DenseView<V>(wide_y.data(), a.rows(), 3, Layout::row_major, 8));
    reference::spmm(a, DenseView<const V>(wide_x.data(), a.cols(), 3, Layout::row_major, 8), ref.view());
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type j = 0; j < 3; ++j) REQUIRE(double(wide_y(i, j)) == Approx(double(ref(i, j))).epsilon(1e-5));
    DenseMatrix<V> y(a.rows(), 3);
    CHECK_THROWS_AS(cpu::spmm_tiled_ell(t, DenseView<const V>(wide_x.data(), a.cols(), 3, Layout::row_major, 8), y.view(),
                                        Epilogue<V>{}, 3),
                    InvalidInput);
}

TEST_CASE("core's two-pass tiled ELL build equals the serial oracle on projection matrices", "[xct][operator][kernel]") {
    const auto g = small_geometry(45, 33);
    for (auto kind : {DomainOrder::natural, DomainOrder::hilbert}) {
        const auto o = make_ordering(g, kind, 8);
        const auto a = build_rows<float>(g, o, 0, g.num_rays());
        const auto at = transpose_parallel(a);
        for (const auto& tiles : {TiledEllConfig{32, 1}, TiledEllConfig{64, 100}, TiledEllConfig{128, 4096},
                                  TiledEllConfig{256, 65536}})
            for (const Csr<float, Index>* m : std::initializer_list<const Csr<float, Index>*>{&a, &at}) {
                const auto mine = tiled_ell_from_csr(*m, tiles), core = test::tiled_ell_oracle(*m, tiles);
                INFO("block rows " << tiles.block_rows << " buffer " << tiles.buffer_entries);
                test::check_same_tiled_ell(mine, core);
            }
    }
    CHECK_THROWS_AS(tiled_ell_from_csr(Csr<float, Index>(), TiledEllConfig{48, 16}), InvalidInput);
}
