// The cpu backprojection's entry point (core/kernels/backprojection.hpp): checks the arguments
// once, then runs the kernel compiled for the level chosen at start-up
// (core/cpu/backprojection_kernels.cpp, core/cpu/isa_dispatch.hpp).
#include <limits>
#include <string>

#include "core/cpu/isa_dispatch.hpp"
#include "core/error.hpp"
#include "core/kernels/backprojection.hpp"

namespace tessel::cpu {

template <typename V>
void backproject(DenseView<const V> s, const ParallelBeam& scan, DenseView<V> image) {
    backprojection::check_arguments("cpu::backproject", s, scan, image);
    const size_type k = s.cols, n = scan.n;
    if (k == 0 || n == 0) return;
    TESSEL_ENSURE_DIMS((scan.num_rho + 2) * k < std::numeric_limits<int>::max() && n < (1 << 20),
                       "cpu::backproject: " + std::to_string(scan.num_rho) + " channels x " + std::to_string(k) +
                           " slices or an image of " + std::to_string(n) + " pixels a side is too large");
    TESSEL_CPU_DISPATCH(backproject(s, scan, image));
}

template void backproject(DenseView<const float>, const ParallelBeam&, DenseView<float>);
template void backproject(DenseView<const double>, const ParallelBeam&, DenseView<double>);

}  // namespace tessel::cpu
