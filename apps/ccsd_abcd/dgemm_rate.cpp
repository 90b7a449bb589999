// Timing OpenBLAS dgemm on a square matrix.
#include "apps/ccsd_abcd/dgemm_rate.hpp"

#include <algorithm>
#include <vector>

#include "apps/ccsd_abcd/blas.hpp"
#include "apps/ccsd_abcd/tile_values.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

double measure_dgemm_rate(size_type n, int threads, int repeats) {
    if (n <= 0) return 0;
    std::vector<double> a(static_cast<std::size_t>(n * n)), b(a.size()), c(a.size(), 0.0);
    fill_tile(11, Operand::a, 0, n, 0, n, a.data());
    fill_tile(11, Operand::b, 0, n, 0, n, b.data());
    BlasThreads use(threads);
    gemm_accumulate(n, n, n, a.data(), n, b.data(), n, c.data(), n);
    double best = 1e300;
    for (int r = 0; r < std::max(1, repeats); ++r) {
        Timer t;
        gemm_accumulate(n, n, n, a.data(), n, b.data(), n, c.data(), n);
        best = std::min(best, t.seconds());
    }
    return 2.0 * double(n) * double(n) * double(n) / best;
}

}  // namespace tessel::abcd
