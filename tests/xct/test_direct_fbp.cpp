// FBP without the operator: the direct backprojection (core's kernel through xct's geometry)
// against Aᵀ (scale, geometry), FBP and CGLS images of one object lining up pixel for pixel, K
// slices against one, the backends it accepts, the matrix-free A against the stored one, and
// the centre gallery's pick on an axis off the middle.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include "apps/xct/fbp/center_search.hpp"
#include "apps/xct/fbp/direct_backprojection.hpp"
#include "apps/xct/fbp/fbp_filter.hpp"
#include "apps/xct/geometry/phantom.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/traced_projector.hpp"
#include "apps/xct/preprocessing/center_finding.hpp"
#include "apps/xct/solvers/solver.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "io/data_exchange.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

/// An object with nothing symmetric about the centre: a bright 5 x 7 block right of and above
/// the middle, a fainter disc low and left. A flip, transposition or shift of FBP's geometry
/// against A's would move its centroid.
std::vector<float> lopsided(size_type n) {
    std::vector<float> image(static_cast<std::size_t>(n * n), 0.0f);
    for (size_type iy = 0; iy < n; ++iy)
        for (size_type ix = 0; ix < n; ++ix) {
            if (ix >= 40 && ix < 45 && iy >= 10 && iy < 17) image[iy * n + ix] = 1.0f;
            const double dx = double(ix) - 18.5, dy = double(iy) - 44.0;
            if (dx * dx + dy * dy < 36.0) image[iy * n + ix] = 0.3f;
        }
    return image;
}

/// Intensity-weighted centroid of the values above 0.7 of the maximum: the block alone (FBP's
/// ripples and the disc stay out).
std::pair<double, double> centroid(const float* image, size_type n) {
    const float peak = *std::max_element(image, image + n * n);
    double sx = 0, sy = 0, sum = 0;
    for (size_type iy = 0; iy < n; ++iy)
        for (size_type ix = 0; ix < n; ++ix) {
            const double v = image[iy * n + ix];
            if (v < 0.7 * peak) continue;
            sx += v * double(ix);
            sy += v * double(iy);
            sum += v;
        }
    return {sx / sum, sy / sum};
}

/// The shift (dx, dy) in [-2, 2]² at which b correlates best with a.
std::pair<int, int> best_shift(const float* a, const float* b, size_type n) {
    double best = -1e300;
    std::pair<int, int> at{99, 99};
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
            double sum = 0;
            for (size_type iy = 2; iy + 2 < n; ++iy)
                for (size_type ix = 2; ix + 2 < n; ++ix) sum += double(a[iy * n + ix]) * b[(iy + dy) * n + ix + dx];
            if (sum > best) {
                best = sum;
                at = {dx, dy};
            }
        }
    return at;
}

struct Scan {
    Geometry g;
    std::unique_ptr<LocalProjector<float>> op;
    DenseMatrix<float> x, b;  // the object and its sinogram (natural order)
    Scan(size_type n, size_type angles, const std::vector<float>& image) : g{n, n, uniform_angles(angles)} {
        op = make_local_projector<float>(g, make_ordering(g, DomainOrder::natural), {});
        x = DenseMatrix<float>(g.num_pixels(), 1);
        std::copy(image.begin(), image.end(), x.data());
        op->forward(x, b);
    }
    DenseMatrix<float> fbp() const {
        DenseMatrix<float> filtered = b, image;
        fbp_filter_rows<float>(std::span<float>(filtered.data(), filtered.size()), g.num_theta(), g.num_rho, g.theta, {});
        backproject_direct(filtered, g, 0.5 * double(g.num_rho), image);
        return image;
    }
};

}  // namespace

TEST_CASE("FBP and CGLS images of one object line up pixel for pixel", "[xct][fbp]") {
    const size_type n = 64;
    Scan s(n, 96, lopsided(n));
    const DenseMatrix<float> fbp = s.fbp();
    SolverOptions o;
    o.iterations = 40;
    Solver<float> solver(*s.op, o);
    SolverState<float> state;
    solver.start(s.b, state);
    while (solver.running(state)) solver.step(s.b, state);
    const auto truth = centroid(s.x.data(), n), f = centroid(fbp.data(), n), c = centroid(state.x.data(), n);
    INFO("centroids: truth " << truth.first << "," << truth.second << " fbp " << f.first << "," << f.second
                             << " cgls " << c.first << "," << c.second);
    CHECK(std::abs(f.first - c.first) < 0.05);
    CHECK(std::abs(f.second - c.second) < 0.05);
    CHECK(std::abs(f.first - truth.first) < 0.1);
    CHECK(std::abs(f.second - truth.second) < 0.1);
    CHECK(best_shift(state.x.data(), fbp.data(), n) == std::pair(0, 0));
    CHECK(best_shift(s.x.data(), fbp.data(), n) == std::pair(0, 0));
}

TEST_CASE("the direct backprojection is Aᵀ's geometry and scale on smooth data", "[xct][fbp]") {
    // A smooth object: Aᵀ (Siddon footprint) and the pixel-driven interpolation then agree.
    const size_type n = 48;
    std::vector<float> blob(static_cast<std::size_t>(n * n));
    for (size_type iy = 0; iy < n; ++iy)
        for (size_type ix = 0; ix < n; ++ix)
            blob[iy * n + ix] = float(std::exp(-(std::pow(double(ix) - 30.0, 2) + std::pow(double(iy) - 20.0, 2)) / 40.0));
    Scan s(n, 72, blob);
    DenseMatrix<float> stored;
    s.op->backward(s.b, stored);
    auto distance = [&](double center) {  // relative to Aᵀ·b
        DenseMatrix<float> direct;
        backproject_direct(s.b, s.g, center, direct);
        double diff = 0, norm = 0;
        for (size_type i = 0; i < s.g.num_pixels(); ++i) {
            diff += std::pow(double(direct(i, 0)) - stored(i, 0), 2);
            norm += std::pow(double(stored(i, 0)), 2);
        }
        return std::sqrt(diff / norm);
    };
    // The footprints differ (Siddon lengths against linear interpolation): 2.1 % on this blob;
    // an axis a quarter channel off either way is 3.1 %: A's axis is the closest.
    const double same = distance(0.5 * double(n));
    CHECK(same < 0.025);
    CHECK(distance(0.5 * double(n) + 0.25) > 1.3 * same);
    CHECK(distance(0.5 * double(n) - 0.25) > 1.3 * same);
    DenseMatrix<float> out;
    CHECK_THROWS_AS(backproject_direct(s.b, Geometry{n, n + 1, uniform_angles(72)}, 24.0, out), DimensionMismatch);
}

TEST_CASE("K slices backproject as each slice alone, and a moved axis as the centred data", "[xct][fbp]") {
    const size_type n = 40, k = 5;
    Geometry g{n, n, uniform_angles(60)};
    DenseMatrix<double> b(g.num_rays(), k), one(g.num_rays(), 1), all, single;
    for (size_type i = 0; i < g.num_rays(); ++i)
        for (size_type j = 0; j < k; ++j) b(i, j) = std::sin(0.01 * double(i * (j + 1))) + double(j);
    backproject_direct(b, g, 20.0, all);
    for (size_type j = 0; j < k; ++j) {
        for (size_type i = 0; i < g.num_rays(); ++i) one(i, 0) = b(i, j);
        backproject_direct(one, g, 20.0, single);
        double worst = 0;
        for (size_type i = 0; i < g.num_pixels(); ++i) worst = std::max(worst, std::abs(all(i, j) - single(i, 0)));
        CHECK(worst < 1e-9 * (1.0 + double(j)) * double(g.num_theta()));
    }
    // Channels moved right by 3 with the axis at 23 instead of 20: the same image.
    DenseMatrix<double> moved(g.num_rays(), 1, Layout::row_major, 0.0), image;
    for (size_type a = 0; a < g.num_theta(); ++a)
        for (size_type c = 3; c < n; ++c) moved(a * n + c, 0) = b(a * n + c - 3, 0);
    for (size_type a = 0; a < g.num_theta(); ++a)
        for (size_type c = n - 3; c < n; ++c) b(a * n + c, 0) = 0.0;  // what fell off the detector
    for (size_type i = 0; i < g.num_rays(); ++i) one(i, 0) = b(i, 0);
    backproject_direct(one, g, 20.0, single);
    backproject_direct(moved, g, 23.0, image);
    double worst = 0;
    for (size_type i = 0; i < g.num_pixels(); ++i) worst = std::max(worst, std::abs(image(i, 0) - single(i, 0)));
    CHECK(worst < 1e-9);
}

TEST_CASE("the direct backprojection runs on cpu or on a cuda device, nowhere else", "[xct][fbp]") {
    const Geometry g{8, 8, uniform_angles(4)};
    DenseMatrix<float> b(g.num_rays(), 2, Layout::row_major, 1.0f), x;
    CHECK_THROWS_AS(backproject_direct(b, g, 4.0, x, Backend::automatic), InvalidInput);
    CHECK_THROWS_AS(backproject_direct(b, g, 4.0, x, Backend::reference), InvalidInput);
    if (!cuda::device_available()) CHECK_THROWS_AS(backproject_direct(b, g, 4.0, x, Backend::cuda), BackendUnavailable);
    backproject_direct(b, g, 4.0, x, Backend::cpu);
    CHECK(x.rows() == g.num_pixels());
    CHECK(x(0, 1) > 0.0f);
}

TEST_CASE("the matrix-free A gives the stored operator's products", "[xct][fbp]") {
    Geometry g{36, 40, uniform_angles(50)};
    auto stored = make_local_projector<double>(g, make_ordering(g, DomainOrder::natural), {});
    TracedProjector<double> traced(g);
    DenseMatrix<double> x(g.num_pixels(), 2), y1, y2, z1, z2;
    for (size_type i = 0; i < g.num_pixels(); ++i) {
        x(i, 0) = std::cos(0.1 * double(i));
        x(i, 1) = 1.0;
    }
    stored->forward(x, y1);
    traced.forward(x, y2);
    stored->backward(y1, z1);
    traced.backward(y1, z2);
    for (size_type i = 0; i < g.num_rays(); ++i)
        for (size_type j = 0; j < 2; ++j) REQUIRE(y2(i, j) == Approx(y1(i, j)).margin(1e-9));
    for (size_type i = 0; i < g.num_pixels(); ++i)
        for (size_type j = 0; j < 2; ++j) REQUIRE(z2(i, j) == Approx(z1(i, j)).margin(1e-9));
    CHECK(traced.nnz() == 0);
}

TEST_CASE("the centre gallery picks an axis off the middle and never a range edge", "[xct][center]") {
    const size_type n = 96;
    Scan s(n, 144, shepp_logan_2d(n));
    for (double axis : {51.5, 44.0}) {
        std::vector<float> sino(s.b.data(), s.b.data() + s.g.num_rays());
        io::shift_center(sino, s.g.num_theta(), n, n - axis);  // the object now turns about `axis`
        std::vector<double> centers;
        for (double c = 38.0; c <= 58.0; c += 0.5) centers.push_back(c);
        std::vector<CenterTrialResult> rows(centers.size());
        const auto vo = vo_metric_at(sino, s.g.num_theta(), n, s.g.theta, centers);
        const auto images = fbp_at_centers(sino, s.g, centers, {});
        for (std::size_t t = 0; t < centers.size(); ++t) {
            rows[t] = score_image(images[t], n);
            rows[t].center = centers[t];
            rows[t].vo = vo[t];
        }
        const CenterPick pick = pick_center(rows);
        INFO("axis " << axis << " picked " << rows[pick.index].center);
        CHECK(std::abs(rows[pick.index].center - axis) <= 0.5);
        CHECK(!pick.at_edge);
        // A range that stops short of the axis: its best trial is an edge, and says so.
        std::vector<CenterTrialResult> short_range(rows.begin(), rows.begin() + 8);  // 38 .. 41.5
        CHECK(pick_center(short_range).at_edge);
    }
    CHECK_THROWS_AS(fbp_at_centers(std::vector<float>(s.g.num_rays()), s.g, {97.0}, {}), InvalidInput);
}
