// --turn-symmetry: the operator of half the angles, applied to the image and its quarter turn,
// equals the whole scan's A and Aᵀ (stored and scatter Aᵀ); scans without turned pairs are refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/turn_symmetry.hpp"
#include "apps/xct/operator/turned_projector.hpp"
#include "core/error.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

DenseMatrix<double> random_matrix(size_type rows, size_type cols, unsigned seed) {
    DenseMatrix<double> m(rows, cols);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (size_type i = 0; i < m.size(); ++i) m.data()[i] = u(rng);
    return m;
}

// Rows of `m` moved from positions to natural indices: out[order[i]] = m[i].
DenseMatrix<double> to_natural(const DenseMatrix<double>& m, const partition::Permutation& order) {
    DenseMatrix<double> out(m.rows(), m.cols());
    for (size_type i = 0; i < m.rows(); ++i)
        for (size_type j = 0; j < m.cols(); ++j) out(order[i], j) = m(i, j);
    return out;
}

// Rows of natural `m` moved to positions: out[i] = m[order[i]].
DenseMatrix<double> to_positions(const DenseMatrix<double>& m, const partition::Permutation& order) {
    DenseMatrix<double> out(m.rows(), m.cols());
    for (size_type i = 0; i < m.rows(); ++i)
        for (size_type j = 0; j < m.cols(); ++j) out(i, j) = m(order[i], j);
    return out;
}

double max_difference(const DenseMatrix<double>& a, const DenseMatrix<double>& b) {
    double d = 0;
    for (size_type i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a.data()[i] - b.data()[i]));
    return d;
}

}  // namespace

TEST_CASE("the half operator applied turned equals the whole scan's A and Aᵀ", "[xct][turn]") {
    const Geometry g{40, 44, uniform_angles(60)};  // more channels than pixels: rays miss the image
    check_turned_pairs(g);
    for (bool scatter : {false, true}) {
        ProjectorOptions options;
        options.tiles = {64, 512};
        options.scatter_transpose = scatter;
        const Ordering whole_order = make_ordering(g, DomainOrder::hilbert, 8);
        auto whole = make_local_projector<double>(g, whole_order, options);
        const Geometry half = first_half(g);
        const Ordering half_order = make_ordering(half, DomainOrder::hilbert, 8);
        const Ordering order = paired_ordering(half_order, g);
        TurnedPairProjector<double> turned(make_local_projector<double>(half, half_order, options),
                                           turned_positions(order, g.n));
        REQUIRE(turned.rays() == g.num_rays());
        CHECK(turned.nnz() * 2 == whole->nnz());

        const auto x = random_matrix(g.num_pixels(), 3, 1);
        auto xw = to_positions(x, whole_order.pixels), xt = to_positions(x, order.pixels);
        DenseMatrix<double> yw, yt;
        whole->forward(xw, yw);
        turned.forward(xt, yt);
        const auto y_whole = to_natural(yw, whole_order.rays), y_turned = to_natural(yt, order.rays);
        CHECK(max_difference(y_whole, y_turned) < 1e-9);

        const auto y = random_matrix(g.num_rays(), 3, 2);
        auto yw2 = to_positions(y, whole_order.rays), yt2 = to_positions(y, order.rays);
        DenseMatrix<double> bw, bt;
        whole->backward(yw2, bw);
        turned.backward(yt2, bt);
        CHECK(max_difference(to_natural(bw, whole_order.pixels), to_natural(bt, order.pixels)) < 1e-9);
        CHECK(turned.stats().forward_calls == 1);
        CHECK(turned.stats().backward_calls == 1);
    }
}

TEST_CASE("turn symmetry is refused for scans without angles in turned pairs", "[xct][turn]") {
    CHECK_THROWS_WITH(check_turned_pairs(Geometry{16, 16, uniform_angles(45)}),
                      Catch::Contains("--turn-symmetry: needs an even number of angles, not 45"));
    auto angles = uniform_angles(40);
    angles[23] += 1e-3;
    CHECK_THROWS_WITH(check_turned_pairs(Geometry{16, 16, angles}),
                      Catch::Contains("--turn-symmetry: angles 3 and 23 are 90.057296 degrees apart, not 90"));
    // float32 angle files are within the tolerance.
    auto rounded = uniform_angles(750);
    for (double& t : rounded) t = double(float(t));
    CHECK_NOTHROW(check_turned_pairs(Geometry{16, 16, rounded}));
}
