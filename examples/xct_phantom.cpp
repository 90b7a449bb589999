// docs/api.md, xct on arrays: the line integrals of the Shepp-Logan phantom, reconstructed by
// CGLS (apps/xct/driver/api.hpp); fails unless the image is within 20 dB PSNR of the phantom.
#include <cstdio>

#include "apps/xct/driver/api.hpp"
#include "apps/xct/geometry/phantom.hpp"

int main() try {
    // [xct-array]
    using namespace tessel::xct;
    const tessel::size_type n = 64, angles = 96;
    const std::vector<double> theta = uniform_angles(angles);         // radians over [0, π)
    const std::vector<float> truth = shepp_logan_2d(n);                // n x n
    const std::vector<float> sino = project_array(truth, 1, n, theta, n);  // 1 x angles x n
    SinogramArray sinograms{sino.data(), 1, angles, n, SinogramLayout::slice_angle_channel, theta};
    ArrayReconstructOptions options;                                   // CGLS, centre n/2
    options.solver.iterations = 30;
    const std::vector<float> image = reconstruct_array(sinograms, options);  // 1 x n x n
    const double db = psnr(image, truth);
    // [xct-array]
    std::printf("phantom %lld x %lld, %lld angles: PSNR %.2f dB\n", (long long)n, (long long)n, (long long)angles, db);
    return db > 20 ? 0 : 1;
} catch (const tessel::Error& e) {
    std::fprintf(stderr, "xct_phantom: %s\n", e.message().c_str());
    return 1;
}
