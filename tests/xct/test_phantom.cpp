// Shepp-Logan phantoms, Poisson noise and PSNR.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/xct/geometry/phantom.hpp"

using namespace tessel;
using namespace tessel::xct;

TEST_CASE("the 2-D phantom has Toft's values", "[xct][phantom]") {
    const size_type n = 128;
    const auto image = shepp_logan_2d(n);
    REQUIRE(image.size() == std::size_t(n * n));
    const auto [lo, hi] = std::minmax_element(image.begin(), image.end());
    CHECK(*lo == Approx(0.0).margin(1e-6));
    CHECK(*hi == Approx(1.0).margin(1e-6));  // the skull
    // Centre: skull 1.0 + brain -0.8 = 0.2; corner: background 0.
    CHECK(image[(n / 2) * n + n / 2] == Approx(0.2).margin(1e-6));
    CHECK(image[0] == 0.0f);
    // Row 0 is the top of the head: the small ellipses at y = -0.6 (the bottom) sit in the
    // lower rows.
    const size_type bottom = size_type(0.5 * n + 0.605 * 0.5 * n);
    CHECK(image[bottom * n + n / 2] == Approx(0.3).margin(1e-6));
}

TEST_CASE("3-D phantom slices: z = 0 close to the 2-D phantom, outside the head empty", "[xct][phantom]") {
    const size_type n = 64;
    const auto mid = shepp_logan_3d_slice(n, 0.0);
    CHECK(mid[(n / 2) * n + n / 2] == Approx(0.2).margin(1e-6));
    const auto outside = shepp_logan_3d_slice(n, 0.99);
    CHECK(*std::max_element(outside.begin(), outside.end()) == 0.0f);
    const auto volume = shepp_logan_volume(n, 8);
    CHECK(volume.size() == std::size_t(8 * n * n));
    CHECK(shepp_logan_volume(n, 1) == shepp_logan_2d(n));
}

TEST_CASE("every pixel of a 3-D slice is the phantom's value at its centre", "[xct][phantom]") {
    // The slice tests only the pixels near each ellipsoid's chord; the point test is the whole sum.
    for (const size_type n : {1, 2, 7, 64, 255, 512}) {
        for (const double z : {-0.95, -0.5, -0.15, 0.0, 0.05, 0.25, 0.6, 0.99}) {
            const auto image = shepp_logan_3d_slice(n, z);
            auto centre = [n](size_type i) { return (double(i) + 0.5 - 0.5 * double(n)) / (0.5 * double(n)); };
            size_type differ = 0, nonzero = 0;
            for (size_type iy = 0; iy < n; ++iy)
                for (size_type ix = 0; ix < n; ++ix) {
                    const float expected = static_cast<float>(shepp_logan_3d_value(centre(ix), -centre(iy), z));
                    differ += image[iy * n + ix] != expected;
                    nonzero += expected != 0.0f;
                }
            INFO("n " << n << ", z " << z);
            CHECK(differ == 0);
            if (n >= 64 && std::abs(z) < 0.5) CHECK(nonzero > n * n / 4);  // the head is there
        }
    }
}

TEST_CASE("Poisson noise is deterministic, independent of how the data are split", "[xct][phantom]") {
    std::vector<float> sino(1000);
    for (std::size_t i = 0; i < sino.size(); ++i) sino[i] = float(i % 37) * 0.1f;
    auto whole = sino;
    add_poisson_noise(std::span<float>(whole), 1e4, 42);
    auto first = std::vector<float>(sino.begin(), sino.begin() + 400);
    auto second = std::vector<float>(sino.begin() + 400, sino.end());
    const double peak = *std::max_element(sino.begin(), sino.end());
    add_poisson_noise(std::span<float>(first), 1e4, 42, 0, peak);
    add_poisson_noise(std::span<float>(second), 1e4, 42, 400, peak);
    for (std::size_t i = 0; i < 400; ++i) REQUIRE(first[i] == whole[i]);
    for (std::size_t i = 400; i < 1000; ++i) REQUIRE(second[i - 400] == whole[i]);
    // The noise is there, small, and zero-mean-ish.
    double diff = 0, mean = 0;
    for (std::size_t i = 0; i < sino.size(); ++i) {
        diff = std::max(diff, double(std::abs(whole[i] - sino[i])));
        mean += whole[i] - sino[i];
    }
    CHECK(diff > 0);
    CHECK(diff < 0.3);
    CHECK(std::abs(mean / 1000) < 0.01);
}

TEST_CASE("PSNR uses the truth's dynamic range", "[xct][phantom]") {
    std::vector<float> truth{0.0f, 1.0f, 0.5f, 0.25f}, image = truth;
    CHECK(std::isinf(psnr(image, truth)));
    for (auto& v : image) v += 0.1f;  // MSE 0.01, range 1: 20 dB
    CHECK(psnr(image, truth) == Approx(20.0).margin(1e-4));
}
