// Matrix-free Siddon products: rays traced on the fly, parallel over rays.
#include "apps/xct/operator/traced_projector.hpp"

#include <omp.h>

#include <vector>

#include "apps/xct/geometry/siddon.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::xct {

template <typename V>
TracedProjector<V>::TracedProjector(Geometry geometry) : g_(std::move(geometry)) {
    g_.validate();
}

template <typename V>
void TracedProjector<V>::forward(DenseMatrix<V>& x, DenseMatrix<V>& y) {
    TESSEL_ENSURE_DIMS(x.rows() == pixels() && x.layout() == Layout::row_major,
                       "traced forward: " + std::to_string(x.rows()) + " rows for " + std::to_string(pixels()) + " pixels");
    Timer timer;
    const size_type k = x.cols(), num_rho = g_.num_rho;
    y = DenseMatrix<V>(rays(), k);
#pragma omp parallel
    {
        std::vector<double> sum(static_cast<std::size_t>(k));
#pragma omp for schedule(dynamic, 64)
        for (size_type ray = 0; ray < rays(); ++ray) {
            std::fill(sum.begin(), sum.end(), 0.0);
            trace_ray(g_.n, g_.theta[ray / num_rho], g_.rho(ray % num_rho), [&](size_type pixel, double length) {
                const V* in = x.data() + pixel * k;
                for (size_type j = 0; j < k; ++j) sum[j] += length * double(in[j]);
            });
            for (size_type j = 0; j < k; ++j) y(ray, j) = static_cast<V>(sum[j]);
        }
    }
    ++this->stats_.forward_calls;
    this->stats_.forward_seconds += timer.seconds();
}

template <typename V>
void TracedProjector<V>::backward(DenseMatrix<V>& y, DenseMatrix<V>& x) {
    TESSEL_ENSURE_DIMS(y.rows() == rays() && y.layout() == Layout::row_major,
                       "traced backward: " + std::to_string(y.rows()) + " rows for " + std::to_string(rays()) + " rays");
    Timer timer;
    const size_type k = y.cols(), num_rho = g_.num_rho, size = pixels() * k;
    const int threads = omp_get_max_threads();
    std::vector<double> partial(static_cast<std::size_t>(threads * size), 0.0);
#pragma omp parallel num_threads(threads)
    {
        double* mine = partial.data() + omp_get_thread_num() * size;
#pragma omp for schedule(dynamic, 64)
        for (size_type ray = 0; ray < rays(); ++ray)
            trace_ray(g_.n, g_.theta[ray / num_rho], g_.rho(ray % num_rho), [&](size_type pixel, double length) {
                for (size_type j = 0; j < k; ++j) mine[pixel * k + j] += length * double(y(ray, j));
            });
    }
    x = DenseMatrix<V>(pixels(), k);
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < size; ++i) {
        double sum = 0;
        for (int t = 0; t < threads; ++t) sum += partial[t * size + i];
        x.data()[i] = static_cast<V>(sum);
    }
    ++this->stats_.backward_calls;
    this->stats_.backward_seconds += timer.seconds();
}

template <typename V>
nlohmann::json TracedProjector<V>::describe() const {
    return {{"kind", "traced (matrix-free)"}, {"nnz", 0}, {"bytes", 0}};
}

template class TracedProjector<float>;
template class TracedProjector<double>;

}  // namespace tessel::xct
