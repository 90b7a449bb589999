// xct's geometry to core's backprojection, on cpu or cuda.
#include "apps/xct/fbp/direct_backprojection.hpp"

#include <string>

#include "core/error.hpp"
#include "core/kernels/backprojection.hpp"

namespace tessel::xct {

template <typename V>
void backproject_direct(DenseView<const V> s, const Geometry& g, double center, DenseView<V> image, Backend backend) {
    const ParallelBeam scan{g.n, g.num_rho, g.theta, center};
    switch (backend) {
        case Backend::cpu: return cpu::backproject(s, scan, image);
        case Backend::cuda: require_backend(backend); return cuda::backproject(s, scan, image);
        default:
            TESSEL_INVALID_INPUT("backend", 0, "the backprojection runs on cpu or cuda, not " +
                                                   std::string(to_string(backend)));
    }
}

template <typename V>
void backproject_direct(const DenseMatrix<V>& s, const Geometry& g, double center, DenseMatrix<V>& image,
                        Backend backend) {
    image = DenseMatrix<V>(g.num_pixels(), s.cols());
    backproject_direct<V>(s.view(), g, center, image.view(), backend);
}

#define TESSEL_INSTANTIATE(V)                                                                                   \
    template void backproject_direct(DenseView<const V>, const Geometry&, double, DenseView<V>, Backend);      \
    template void backproject_direct(const DenseMatrix<V>&, const Geometry&, double, DenseMatrix<V>&, Backend);
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::xct
