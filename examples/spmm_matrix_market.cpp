// docs/api.md, SpMM: C = A·B with A read from a Matrix Market file and B all ones, so that
// every entry of row i of C is the sum of row i of A (checked).
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/kernels/spmm.hpp"
#include "io/matrix_market.hpp"

int main(int argc, char** argv) try {
    if (argc != 2) return std::fprintf(stderr, "usage: spmm_matrix_market FILE.mtx\n"), 2;
    // [spmm]
    using namespace tessel;
    const auto a = io::read_matrix_market_csr<double, std::int32_t>(argv[1]);  // CSR, columns sorted
    DenseMatrix<double> b(a.cols(), 8, Layout::row_major, 1.0);               // B: cols x 8, all ones
    DenseMatrix<double> c(a.rows(), 8);                                        // C: rows x 8
    const SpmmAlgorithm kernel = spmm(a, std::as_const(b).view(), c.view());   // C := A·B
    std::printf("%lld x %lld, %lld nonzeros: kernel %s\n", (long long)a.rows(), (long long)a.cols(),
                (long long)a.nnz(), std::string(to_string(kernel)).c_str());
    // [spmm]
    for (size_type i = 0; i < a.rows(); ++i) {
        double sum = 0;
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) sum += a.values()[e];
        for (size_type j = 0; j < 8; ++j)
            if (std::abs(c(i, j) - sum) > 1e-12 * (1 + std::abs(sum)))
                return std::fprintf(stderr, "C(%lld, %lld) = %g, expected %g\n", (long long)i, (long long)j, c(i, j), sum), 1;
    }
    return 0;
} catch (const tessel::Error& e) {
    std::fprintf(stderr, "spmm_matrix_market: %s\n", e.message().c_str());
    return 1;
}
