// Pixel-driven backprojection on cpu: rows padded with zero channels (no branch at the ends),
// a block of image rows per OpenMP iteration accumulated in a thread-local buffer over all angles.
#include "apps/xct/direct_backprojection.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "apps/xct/backprojection_geometry.hpp"
#include "core/error.hpp"

namespace tessel::xct {

namespace {

namespace bp = backprojection;

// acc[ix·k + j] += s_j(first + ix·step) for one angle; `row` is that angle's padded channels.
template <typename V>
void add_angle(V* acc, const V* row, int n, int k, int num_rho, bp::RowPositions at) {
    const V first = static_cast<V>(at.first), step = static_cast<V>(at.step);
    if (k == 1) {
#pragma omp simd
        for (int ix = 0; ix < n; ++ix) {
            long long left;
            V w;
            bp::padded_sample<V>(first + V(ix) * step, num_rho, &left, &w);
            acc[ix] += row[left] + w * (row[left + 1] - row[left]);
        }
        return;
    }
    for (int ix = 0; ix < n; ++ix) {
        long long left;
        V w;
        bp::padded_sample<V>(first + V(ix) * step, num_rho, &left, &w);
        const V* s = row + left * k;
        V* a = acc + static_cast<long long>(ix) * k;
#pragma omp simd
        for (int j = 0; j < k; ++j) a[j] += s[j] + w * (s[k + j] - s[j]);
    }
}

// The sinograms with one zero channel on each side: padded[(a·(num_rho + 2) + c + 1)·k + j].
template <typename V>
std::vector<V> padded_rows(const DenseMatrix<V>& s, size_type num_theta, size_type num_rho) {
    const size_type k = s.cols(), width = num_rho + 2;
    std::vector<V> padded(static_cast<std::size_t>(num_theta * width * k), V{0});
#pragma omp parallel for schedule(static)
    for (size_type a = 0; a < num_theta; ++a)
        std::copy_n(s.data() + a * num_rho * k, num_rho * k, padded.data() + (a * width + 1) * k);
    return padded;
}

}  // namespace

template <typename V>
void backproject_direct(const DenseMatrix<V>& s, const Geometry& g, double center, DenseMatrix<V>& image) {
    TESSEL_ENSURE_DIMS(s.rows() == g.num_rays() && s.layout() == Layout::row_major,
                       "backproject_direct: " + std::to_string(s.rows()) + " rows for " +
                           std::to_string(g.num_rays()) + " rays (row-major)");
    if (!std::isfinite(center)) TESSEL_INVALID_INPUT("center", 0, "rotation centre is not finite");
    const size_type k = s.cols(), n = g.n, num_rho = g.num_rho, num_theta = g.num_theta();
    const auto padded = padded_rows(s, num_theta, num_rho);
    std::vector<double> cosines(static_cast<std::size_t>(num_theta)), sines(cosines.size());
    for (size_type a = 0; a < num_theta; ++a) {
        cosines[a] = std::cos(g.theta[a]);
        sines[a] = std::sin(g.theta[a]);
    }
    image = DenseMatrix<V>(g.num_pixels(), k);
    if (k == 0) return;
    // Image rows in blocks whose accumulators fit about 256 KiB: each angle's padded row is
    // then read from memory once per block, not once per image row (the whole sinogram per row
    // made the loop memory-bound). Every pixel still sums its angles in order: the same bits.
    const size_type row_bytes = n * k * static_cast<size_type>(sizeof(V));
    const size_type block = std::clamp<size_type>((size_type(256) << 10) / std::max<size_type>(row_bytes, 1), 1, 16);
    const size_type blocks = (n + block - 1) / block;
#pragma omp parallel
    {
        std::vector<V> acc(static_cast<std::size_t>(block * n * k));
#pragma omp for schedule(static)
        for (size_type b = 0; b < blocks; ++b) {
            const size_type y0 = b * block, rows = std::min(block, n - y0);
            std::fill(acc.begin(), acc.end(), V{0});
            for (size_type a = 0; a < num_theta; ++a)
                for (size_type r = 0; r < rows; ++r)
                    add_angle(acc.data() + r * n * k, padded.data() + a * (num_rho + 2) * k, int(n), int(k),
                              int(num_rho), bp::row_positions(n, y0 + r, cosines[a], sines[a], center));
            std::copy_n(acc.begin(), rows * n * k, image.data() + y0 * n * k);
        }
    }
}

template void backproject_direct<float>(const DenseMatrix<float>&, const Geometry&, double, DenseMatrix<float>&);
template void backproject_direct<double>(const DenseMatrix<double>&, const Geometry&, double, DenseMatrix<double>&);

}  // namespace tessel::xct
