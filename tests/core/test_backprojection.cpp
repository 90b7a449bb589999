// Pixel-driven backprojection (core/kernels/backprojection.hpp): the cpu kernel against the
// naive loop in double (several image and detector sizes, angles, axes, K = 1 and K > 1, both
// layouts, float and double), and the cuda kernel against the cpu kernel.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/backend.hpp"
#include "core/cpu/isa.hpp"
#include "core/error.hpp"
#include "core/kernels/backprojection.hpp"

using namespace tessel;

namespace {

// A scan and its K sinograms (smooth, different per slice), stored in `layout`.
template <typename T>
struct Problem {
    std::vector<double> theta;
    ParallelBeam scan;
    size_type k;
    Layout layout;
    std::vector<T> s;

    Problem(size_type n, size_type num_rho, size_type angles, double center, size_type k_, Layout layout_)
        : k(k_), layout(layout_) {
        for (size_type a = 0; a < angles; ++a) theta.push_back(-0.3 + 3.9 * double(a) / double(angles));
        scan = ParallelBeam{n, num_rho, theta, center};
        s.resize(static_cast<std::size_t>(scan.num_rays() * k));
        for (size_type r = 0; r < scan.num_rays(); ++r)
            for (size_type j = 0; j < k; ++j) at(r, j) = T(std::sin(0.37 * double(r) + double(j)) + 0.1 * double(j));
    }
    T& at(size_type r, size_type j) {
        return layout == Layout::row_major ? s[std::size_t(r * k + j)] : s[std::size_t(j * scan.num_rays() + r)];
    }
    DenseView<const T> view() const { return {s.data(), scan.num_rays(), k, layout}; }
};

// The obvious loop: every pixel centre projected at every angle, the two channels around it
// weighted linearly, zero beyond the detector; in double.
template <typename T>
std::vector<double> naive(Problem<T>& p) {
    const ParallelBeam& g = p.scan;
    std::vector<double> image(static_cast<std::size_t>(g.num_pixels() * p.k), 0.0);
    auto value = [&](size_type a, long long c, size_type j) {
        return c < 0 || c >= g.num_rho ? 0.0 : double(p.at(a * g.num_rho + c, j));
    };
    for (size_type iy = 0; iy < g.n; ++iy)
        for (size_type ix = 0; ix < g.n; ++ix)
            for (size_type a = 0; a < g.num_theta(); ++a) {
                const double x = -0.5 * double(g.n) + double(ix) + 0.5, y = -0.5 * double(g.n) + double(iy) + 0.5;
                const double u = x * std::cos(g.theta[a]) + y * std::sin(g.theta[a]) + g.center - 0.5;
                const long long c = static_cast<long long>(std::floor(u));
                const double w = u - double(c);
                for (size_type j = 0; j < p.k; ++j)
                    image[std::size_t((iy * g.n + ix) * p.k + j)] +=
                        (1 - w) * value(a, c, j) + w * value(a, c + 1, j);
            }
    return image;
}

// The largest |got - want| over the largest |want| (image pixels x K, `got` in `layout`).
template <typename T>
double relative_error(const std::vector<T>& got, Layout layout, const std::vector<double>& want, size_type k) {
    const size_type pixels = size_type(want.size()) / std::max<size_type>(k, 1);
    double worst = 0, largest = 0;
    for (size_type i = 0; i < pixels; ++i)
        for (size_type j = 0; j < k; ++j) {
            const T g = layout == Layout::row_major ? got[std::size_t(i * k + j)] : got[std::size_t(j * pixels + i)];
            worst = std::max(worst, std::abs(double(g) - want[std::size_t(i * k + j)]));
            largest = std::max(largest, std::abs(want[std::size_t(i * k + j)]));
        }
    return worst / std::max(largest, 1e-300);
}

template <typename T>
std::vector<T> run(Backend backend, Problem<T>& p, Layout out_layout) {
    std::vector<T> image(static_cast<std::size_t>(p.scan.num_pixels() * p.k), std::numeric_limits<T>::quiet_NaN());
    DenseView<T> out(image.data(), p.scan.num_pixels(), p.k, out_layout);
    if (backend == Backend::cuda)
        cuda::backproject(p.view(), p.scan, out);
    else
        cpu::backproject(p.view(), p.scan, out);
    return image;
}

struct Shape {
    size_type n, num_rho, angles;
    double center_offset;  // from num_rho / 2
};

// Detectors wider and narrower than the image, one angle, axes off the middle.
const std::vector<Shape> shapes = {{13, 13, 7, 0.0}, {24, 31, 30, 2.3}, {20, 14, 1, -1.6}, {9, 12, 40, -5.75}};

}  // namespace

// Every compiled level this CPU runs (core/cpu/isa.hpp): each is its own copy of the kernel.
TEMPLATE_TEST_CASE("cpu backprojection equals the naive loop at every level", "[core][backprojection]", float, double) {
    const double tolerance = std::is_same_v<TestType, float> ? 2e-5 : 1e-12;
    for (cpu::Isa isa : cpu::supported_isas()) {
        const cpu::ScopedIsa level(isa);
        for (const Shape& sh : shapes)
            for (size_type k : {1, 2, 3, 8, 16, 19, 32})
                for (Layout in : {Layout::row_major, Layout::col_major})
                    for (Layout out : {Layout::row_major, Layout::col_major}) {
                        const double center = 0.5 * double(sh.num_rho) + sh.center_offset;
                        Problem<TestType> p(sh.n, sh.num_rho, sh.angles, center, k, in);
                        INFO(cpu::isa_name(isa) << ": n " << sh.n << " channels " << sh.num_rho << " angles "
                                                << sh.angles << " k " << k);
                        CHECK(relative_error(run(Backend::cpu, p, out), out, naive(p), k) < tolerance);
                    }
    }
}

TEST_CASE("cpu backprojection refuses arguments that do not fit", "[core][backprojection]") {
    Problem<float> p(8, 10, 5, 5.0, 2, Layout::row_major);
    std::vector<float> image(static_cast<std::size_t>(64 * 2));
    CHECK_THROWS_AS(cpu::backproject(p.view(), p.scan, DenseView<float>(image.data(), 64, 1)), DimensionMismatch);
    CHECK_THROWS_AS(cpu::backproject(DenseView<const float>(p.s.data(), 49, 2), p.scan, DenseView<float>(image.data(), 64, 2)),
                    DimensionMismatch);
    p.scan.center = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(cpu::backproject(p.view(), p.scan, DenseView<float>(image.data(), 64, 2)), InvalidInput);
}

TEMPLATE_TEST_CASE("cuda backprojection equals the cpu one", "[cuda][backprojection]", float, double) {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const double tolerance = std::is_same_v<TestType, float> ? 1e-6 : 1e-14;
    for (const Shape& sh : shapes)
        for (size_type k : {1, 5, 16}) {
            const Layout in = k == 5 ? Layout::col_major : Layout::row_major;
            const Layout out = k == 1 ? Layout::col_major : Layout::row_major;
            Problem<TestType> p(sh.n, sh.num_rho, sh.angles, 0.5 * double(sh.num_rho) + sh.center_offset, k, in);
            const auto cpu_image = run(Backend::cpu, p, out);
            std::vector<double> want(cpu_image.size());
            for (size_type i = 0; i < p.scan.num_pixels(); ++i)  // the cpu image as pixels x K, row-major
                for (size_type j = 0; j < k; ++j)
                    want[std::size_t(i * k + j)] = out == Layout::row_major ? cpu_image[std::size_t(i * k + j)]
                                                                            : cpu_image[std::size_t(j * p.scan.num_pixels() + i)];
            INFO("n " << sh.n << " channels " << sh.num_rho << " angles " << sh.angles << " k " << k);
            CHECK(relative_error(run(Backend::cuda, p, out), out, want, k) < tolerance);
        }
}
