// The phantom's sinograms of a round: its images projected with the run's own operator, with
// Poisson noise keyed by (slice, natural ray) so that every rank grid gives the same numbers.
#include <algorithm>

#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"
#include "apps/xct/geometry/phantom.hpp"
#include "core/comm/mpi_check.hpp"

namespace tessel::xct {

namespace {

// Noise scaled by each slice's largest line integral (over the data ranks).
template <typename V>
void add_noise(RunContext<V>& c, size_type first, DenseMatrix<V>& b) {
    const size_type k = c.k(), rays_total = c.g().num_rays();
    std::vector<double> peak(k, 0.0);
    for (size_type i = 0; i < b.rows(); ++i)
        for (size_type j = 0; j < k; ++j) peak[j] = std::max(peak[j], double(b(i, j)));
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, peak.data(), comm::mpi_count(k), MPI_DOUBLE, MPI_MAX,
                                   c.layout->data.get()));
    const size_type slot0 = c.layout->batch_index() * k;
    const InputOptions& in = c.o.input;
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < b.rows(); ++i) {
        const size_type ray = c.ordering.rays[c.op->first_ray() + i];
        for (size_type j = 0; j < k; ++j) {
            const size_type slice = c.info.first_slice + first + slot0 + j;
            b(i, j) = static_cast<V>(noisy_line_integral(double(b(i, j)), in.noise, peak[j], in.seed,
                                                         std::uint64_t(slice) * std::uint64_t(rays_total) +
                                                             std::uint64_t(ray)));
        }
    }
}

}  // namespace

template <typename V>
void phantom_sinograms(RunContext<V>& c, size_type first, size_type count, DenseMatrix<V>& b) {
    const size_type pixels_total = c.g().num_pixels(), rays_total = c.g().num_rays();
    std::vector<V> images;
    if (c.world_rank == 0) {
        auto scope = c.times.scope("preprocess");
        const auto truth = phantom_images(c.info, first, count);
        images.assign(static_cast<std::size_t>(c.width() * pixels_total), V{0});
        std::copy(truth.begin(), truth.end(), images.begin());
    }
    DenseMatrix<V> x_true;
    c.scatter(images, x_true, true);
    {
        auto scope = c.times.scope("preprocess");
        c.op->forward(x_true, b);
        if (c.o.input.noise > 0) add_noise(c, first, b);
    }
    if (c.saving()) {
        const auto natural = c.gather(b, false);
        if (c.world_rank == 0)
            c.saved_sinogram.insert(c.saved_sinogram.end(), natural.begin(), natural.begin() + count * rays_total);
    }
}

template void phantom_sinograms<float>(RunContext<float>&, size_type, size_type, DenseMatrix<float>&);
template void phantom_sinograms<double>(RunContext<double>&, size_type, size_type, DenseMatrix<double>&);

}  // namespace tessel::xct
