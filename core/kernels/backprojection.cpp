// What both backends of the backprojection share on the host: the argument checks and the
// channel positions of every image row at every angle.
#include "core/kernels/backprojection.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace tessel::backprojection {

template <typename V>
void check_arguments(const char* who, DenseView<const V> s, const ParallelBeam& scan, DenseView<V> image) {
    const std::string name(who);
    TESSEL_ENSURE_DIMS(scan.n >= 0 && scan.num_rho >= 0, name + ": negative image or detector size");
    TESSEL_ENSURE_DIMS(s.rows == scan.num_rays(), name + ": " + std::to_string(s.rows) + " sinogram rows for " +
                                                      std::to_string(scan.num_theta()) + " angles x " +
                                                      std::to_string(scan.num_rho) + " channels");
    TESSEL_ENSURE_DIMS(image.rows == scan.num_pixels() && image.cols == s.cols,
                       name + ": image is " + std::to_string(image.rows) + " x " + std::to_string(image.cols) +
                           ", expected " + std::to_string(scan.num_pixels()) + " x " + std::to_string(s.cols));
    if (!std::isfinite(scan.center)) TESSEL_INVALID_INPUT("center", 0, "rotation centre is not finite");
}

template <typename V>
std::vector<V> row_starts(const ParallelBeam& scan) {
    const size_type n = scan.n;
    std::vector<V> starts(static_cast<std::size_t>(scan.num_theta() * n));
    for (size_type a = 0; a < scan.num_theta(); ++a) {
        const double cos_t = std::cos(scan.theta[a]), sin_t = std::sin(scan.theta[a]);
        for (size_type iy = 0; iy < n; ++iy)
            starts[a * n + iy] = static_cast<V>(row_positions(n, iy, cos_t, sin_t, scan.center).first);
    }
    return starts;
}

template <typename V>
std::vector<V> row_steps(const ParallelBeam& scan) {
    std::vector<V> steps(static_cast<std::size_t>(scan.num_theta()));
    for (size_type a = 0; a < scan.num_theta(); ++a) steps[a] = static_cast<V>(std::cos(scan.theta[a]));
    return steps;
}

#define TESSEL_INSTANTIATE(V)                                                                                    \
    template void check_arguments(const char*, DenseView<const V>, const ParallelBeam&, DenseView<V>);         \
    template std::vector<V> row_starts<V>(const ParallelBeam&);                                                 \
    template std::vector<V> row_steps<V>(const ParallelBeam&);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::backprojection
