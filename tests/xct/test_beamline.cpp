// The beamline steps on phantoms: FBP against the phantom (PSNR and scale), the rotation centre
// of sinograms shifted by known sub-pixel amounts, stripe removal (ring amplitude), CGLS from
// the FBP image, the output checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <functional>
#include <numbers>

#include "apps/xct/fbp/center_search.hpp"
#include "apps/xct/fbp/direct_backprojection.hpp"
#include "apps/xct/fbp/fbp_filter.hpp"
#include "apps/xct/geometry/phantom.hpp"
#include "apps/xct/io/output_check.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/preprocessing/center_finding.hpp"
#include "apps/xct/preprocessing/stripe_removal.hpp"
#include "apps/xct/solvers/solver.hpp"
#include "core/error.hpp"
#include "io/data_exchange.hpp"
#include "tests/common/temp_dir.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

/// A phantom problem: geometry, natural-order operator, the image and its sinogram (natural).
struct Problem {
    Geometry g;
    Ordering ordering;
    std::unique_ptr<LocalProjector<float>> op;
    std::vector<float> truth, sinogram;

    Problem(size_type n, size_type angles) : g{n, n, uniform_angles(angles)} {
        ordering = make_ordering(g, DomainOrder::natural);
        op = make_local_projector<float>(g, ordering, {});
        truth = shepp_logan_2d(n);
        DenseMatrix<float> x(g.num_pixels(), 1), y;
        for (size_type i = 0; i < g.num_pixels(); ++i) x(i, 0) = truth[i];
        op->forward(x, y);
        sinogram.assign(y.data(), y.data() + g.num_rays());
    }

    /// FBP of a natural sinogram: filter, then the direct backprojection (as --solver fbp).
    std::vector<float> fbp(std::vector<float> sino, const FbpOptions& options = {}) const {
        fbp_filter_rows<float>(sino, g.num_theta(), g.num_rho, g.theta, options);
        DenseMatrix<float> b(g.num_rays(), 1), x;
        std::copy(sino.begin(), sino.end(), b.data());
        backproject_direct(b, g, 0.5 * double(g.num_rho), x);
        return std::vector<float>(x.data(), x.data() + g.num_pixels());
    }
};

std::string invalid(const std::function<void()>& f) {
    try {
        f();
    } catch (const InvalidInput& e) {
        return e.message();
    }
    return "no exception";
}

}  // namespace

TEST_CASE("FBP reconstructs the phantom at its scale", "[xct][fbp]") {
    const Problem p(128, 192);
    const auto image = p.fbp(p.sinogram);
    const double db = psnr(image, p.truth);
    INFO("FBP ramp PSNR " << db << " dB");
    CHECK(db > 24.0);
    // Scale: the mean over the phantom's support matches (no stray factor of 2 or π).
    double sum_image = 0, sum_truth = 0;
    for (std::size_t i = 0; i < image.size(); ++i)
        if (p.truth[i] > 0) {
            sum_image += image[i];
            sum_truth += p.truth[i];
        }
    CHECK(sum_image / sum_truth == Approx(1.0).epsilon(0.03));
    // Windows trade resolution for noise: all of them stay close to the phantom.
    for (auto filter : {FbpFilter::shepp_logan, FbpFilter::cosine, FbpFilter::hamming, FbpFilter::hann}) {
        FbpOptions o;
        o.filter = filter;
        CHECK(psnr(p.fbp(p.sinogram, o), p.truth) > 20.0);
    }
    CHECK(angle_weights(p.g.theta)[5] == Approx(std::numbers::pi / 192));
    CHECK(invalid([] { parse_fbp_filter("parzen"); }) ==
          "filter: unknown filter 'parzen', expected ramp, shepp-logan, cosine, hamming or hann");
}

TEST_CASE("angle weights cover half a turn for any order and for 360 degree scans", "[xct][fbp]") {
    const double pi = std::numbers::pi;
    const auto uneven = angle_weights({0.0, 0.5, 0.6, 2.0});
    CHECK(std::accumulate(uneven.begin(), uneven.end(), 0.0) == Approx(pi));
    CHECK(uneven[1] == Approx(0.3));
    std::vector<double> full(360);
    for (int a = 0; a < 360; ++a) full[a] = 2.0 * pi * a / 360.0;
    const auto w = angle_weights(full);
    CHECK(w[10] == Approx(pi / 360.0));
    CHECK(std::accumulate(w.begin(), w.end(), 0.0) == Approx(pi));
}

TEST_CASE("the rotation centre of shifted phantoms within 0.5 channels", "[xct][center]") {
    const Problem p(128, 192);
    for (double shift : {-3.3, 0.0, 0.4, 2.7, 7.25}) {
        std::vector<float> shifted = p.sinogram;
        // out(i) = in(i - shift): the object turns about column 64 + shift.
        io::shift_center(shifted, p.g.num_theta(), p.g.num_rho, 0.5 * double(p.g.num_rho) - shift);
        const double found = find_center_vo(shifted, p.g.num_theta(), p.g.num_rho, p.g.theta);
        INFO("shift " << shift << ": found " << found << ", true " << 64.0 + shift);
        CHECK(std::abs(found - (64.0 + shift)) < 0.5);
    }
    // Rows in another order (angles stored unsorted) give the same centre.
    std::vector<float> shifted = p.sinogram;
    io::shift_center(shifted, p.g.num_theta(), p.g.num_rho, 64.0 - 1.6);
    std::vector<float> rows;
    std::vector<double> theta;
    for (size_type a = 0; a < p.g.num_theta(); ++a) {
        const size_type from = (a * 7) % p.g.num_theta();  // 7 and 192 are coprime
        rows.insert(rows.end(), shifted.begin() + from * 128, shifted.begin() + (from + 1) * 128);
        theta.push_back(p.g.theta[from]);
    }
    CHECK(std::abs(find_center_vo(rows, p.g.num_theta(), 128, theta) - 65.6) < 0.5);
    CHECK(invalid([&] { find_center_vo(std::vector<float>(10 * 128), 10, 128, std::vector<double>(10, 0.1)); })
              .find("center: automatic centre finding needs a 180 degree scan") == 0);
}

TEST_CASE("a wrong centre lowers the sharpness metric of the centre search", "[xct][center]") {
    const Problem p(96, 144);
    const auto right = score_image(p.fbp(p.sinogram), 96);
    std::vector<float> off = p.sinogram;
    io::shift_center(off, p.g.num_theta(), p.g.num_rho, 48.0 - 3.0);
    const auto wrong = score_image(p.fbp(off), 96);
    CHECK(right.entropy < wrong.entropy);
    CHECK(parse_center_trials("40:56:0.5").centers().size() == 33);
    CHECK(invalid([] { parse_center_trials("40:30:1"); }) == "center-search: '40:30:1' needs finite A <= B and STEP > 0");
}

namespace {

/// The phantom's sinogram with six detector stripes (a constant offset of 3-5 % of the peak at
/// every angle) and the ring amplitude of a reconstruction against the clean one: what is left
/// of the difference after averaging over angle at each radius.
struct StripedPhantom {
    Problem p{96, 144};
    size_type T = p.g.num_theta(), C = p.g.num_rho;
    std::vector<float> striped = p.sinogram;
    std::vector<float> clean_image = p.fbp(p.sinogram);

    StripedPhantom() {
        const double peak = *std::max_element(p.sinogram.begin(), p.sinogram.end());
        const std::vector<std::pair<size_type, double>> bad{{20, 0.04}, {31, -0.03}, {44, 0.05},
                                                            {52, -0.04}, {67, 0.03}, {75, 0.05}};
        for (const auto& [c, offset] : bad)
            for (size_type a = 0; a < T; ++a) striped[a * C + c] += static_cast<float>(offset * peak);
    }

    double ring_amplitude(const std::vector<float>& sinogram) const {
        const std::vector<float> image = p.fbp(sinogram);
        const size_type n = p.g.n, bins = n / 2;
        std::vector<double> sum(bins, 0.0), count(bins, 0.0);
        for (size_type y = 0; y < n; ++y)
            for (size_type x = 0; x < n; ++x) {
                const double r = std::hypot(double(x) - 0.5 * (n - 1), double(y) - 0.5 * (n - 1));
                const auto bin = static_cast<size_type>(r);
                if (bin >= bins) continue;
                sum[bin] += image[y * n + x] - clean_image[y * n + x];
                count[bin] += 1;
            }
        double squares = 0;
        for (size_type b = 0; b < bins; ++b) squares += std::pow(sum[b] / count[b], 2);
        return std::sqrt(squares / double(bins));
    }
};

}  // namespace

// Issue 13 asks for 5x. The offsets method corrects only the channels that stand out, so a
// clean sinogram is left exactly as it is.
TEST_CASE("stripe removal by channel offsets reduces ring artefacts over 5x on the sharp phantom", "[xct][stripes]") {
    const StripedPhantom s;
    std::vector<float> cleaned = s.striped, clean = s.p.sinogram;
    remove_stripe_offsets<float>(cleaned, 1, s.T, s.C);
    remove_stripe_offsets<float>(clean, 1, s.T, s.C);
    const double before = s.ring_amplitude(s.striped), after = s.ring_amplitude(cleaned);
    INFO("ring amplitude " << before << " -> " << after);
    CHECK(after * 5 <= before);
    CHECK(clean == s.p.sinogram);
    // A stripe below the threshold is left: the clean channels' curvature sets the scale.
    std::vector<float> high = s.striped;
    remove_stripe_offsets<float>(high, 1, s.T, s.C, 1e6);
    CHECK(high == s.striped);
    CHECK(invalid([&] { remove_stripe_offsets<float>(cleaned, 1, s.T, s.C, 0.0); }) ==
          "stripe-threshold: '0.000000' is not a number above 0");
}

// Vo's sorting method smooths every channel: about 3x here, because the phantom's 1-pixel-sharp
// skull makes the sorted profiles vary quickly across channels, which limits both how well a
// stripe is replaced and how little a clean channel is changed (see stripe_removal.hpp).
TEST_CASE("stripe removal by sorting reduces ring artefacts about 3x on the sharp phantom", "[xct][stripes]") {
    const StripedPhantom s;
    std::vector<float> cleaned = s.striped, clean = s.p.sinogram;
    remove_stripes_sorting<float>(cleaned, 1, s.T, s.C);
    remove_stripes_sorting<float>(clean, 1, s.T, s.C);
    const double before = s.ring_amplitude(s.striped), after = s.ring_amplitude(cleaned);
    const double damage = s.ring_amplitude(clean);
    INFO("ring amplitude " << before << " -> " << after << ", clean sinogram " << damage);
    CHECK(after * 2.5 <= before);
    CHECK(damage * 2.5 <= before);
    CHECK(invalid([&] { remove_stripes_sorting<float>(cleaned, 1, s.T, s.C, 1); }) == "stripe-size: median window 1 is below 3");
}

TEST_CASE("CGLS started from the FBP image reaches a residual in fewer iterations", "[xct][fbp][solver]") {
    const Problem p(96, 144);
    DenseMatrix<float> b(p.g.num_rays(), 1), x0(p.g.num_pixels(), 1);
    std::copy(p.sinogram.begin(), p.sinogram.end(), b.data());
    const auto image = p.fbp(p.sinogram);
    std::copy(image.begin(), image.end(), x0.data());
    SolverOptions o;
    o.iterations = 10;
    Solver<float> from_fbp(*p.op, o);
    SolverState<float> warm;
    from_fbp.start_from(b, x0, warm);
    CHECK(warm.history[0][0] < 0.2);  // the FBP image alone explains most of the data
    while (from_fbp.running(warm)) from_fbp.step(b, warm);
    const double target = warm.history[0].back();
    o.iterations = 200;
    Solver<float> from_zero(*p.op, o);
    SolverState<float> cold;
    from_zero.start(b, cold);
    while (from_zero.running(cold) && cold.history[0].back() > target) from_zero.step(b, cold);
    WARN("CGLS from zero needs " << cold.iteration << " iterations for the residual " << target
                                 << " that 10 iterations from FBP reach");
    CHECK(cold.iteration > 10);
}

TEST_CASE("output paths are checked before the work", "[xct][outputs]") {
    tessel::test::TempDir dir;
    CHECK_NOTHROW(check_output_file("output", dir.file("v.h5")));
    CHECK(invalid([&] { check_output_file("output", dir.file("no/v.h5")); }) ==
          "--output " + dir.file("no/v.h5") + ": cannot write: folder " + dir.file("no") + " does not exist");
    CHECK(invalid([&] { check_output_file("output", dir.file("")); }) ==
          "--output " + dir.file("") + ": cannot write: it is a folder");
    CHECK_NOTHROW(check_output_folder("tiff", dir.file("a/b")));
    dir.write("plain", "x");
    CHECK(invalid([&] { check_output_folder("png", dir.file("plain")); }) ==
          "png: " + dir.file("plain") + " is a file, not a folder");
}
