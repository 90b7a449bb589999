// Timing OpenBLAS dgemm on square matrices: one threaded call, and one call per thread at once.
#include "apps/ccsd_abcd/advice/dgemm_rate.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "apps/ccsd_abcd/problem/tile_values.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {
struct Operands {
    std::vector<double> a, b, c;
    explicit Operands(size_type n)
        : a(static_cast<std::size_t>(n * n)), b(a.size()), c(a.size(), 0.0) {
        fill_tile(11, Operand::a, 0, n, 0, n, a.data());
        fill_tile(11, Operand::b, 0, n, 0, n, b.data());
    }
    void run(size_type n) { cpu::gemm(n, n, n, 1.0, a.data(), n, b.data(), n, 1.0, c.data(), n); }
};
}  // namespace

DgemmRate measure_dgemm_rate(size_type n, int threads, int repeats) {
    DgemmRate rate;
    if (n <= 0) return rate;
    threads = std::max(1, threads);
    repeats = std::max(1, repeats);
    const double flops = 2.0 * double(n) * double(n) * double(n);
    {
        Operands x(n);
        cpu::BlasThreads use(threads);
        x.run(n);
        double best = 1e300;
        for (int r = 0; r < repeats; ++r) {
            Timer t;
            x.run(n);
            best = std::min(best, t.seconds());
        }
        rate.one_call = flops / best;
    }
    if (threads > 1) {
        cpu::BlasThreads single(1);
        double best = 1e300;
#pragma omp parallel num_threads(threads)
        {
            Operands x(n);
            x.run(n);
            for (int r = 0; r < repeats; ++r) {
                Timer t;
#pragma omp barrier
#pragma omp master
                t.restart();
                x.run(n);
#pragma omp barrier
#pragma omp master
                best = std::min(best, t.seconds());
            }
        }
        rate.concurrent = double(threads) * flops / best;
    } else {
        rate.concurrent = rate.one_call;
    }
    return rate;
}

}  // namespace tessel::abcd
