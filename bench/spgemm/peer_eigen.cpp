// Peer: Eigen 3 sparse * sparse (row-major), the conservative product: serial, columns sorted.
#include <Eigen/SparseCore>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/spgemm/peers.hpp"
#include "core/timer.hpp"

namespace tessel::bench::spgemm_peers {

std::string eigen_version() {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
           std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
}

namespace {

template <typename I>
Eigen::SparseMatrix<double, Eigen::RowMajor, I> to_eigen(const Csr<double, I>& a) {
    using Sparse = Eigen::SparseMatrix<double, Eigen::RowMajor, I>;
    // Eigen's outer index has the index type; copy row_ptr into it, then copy the matrix.
    std::vector<I> outer(a.row_ptr().begin(), a.row_ptr().end());
    const Eigen::Map<const Sparse> view(a.rows(), a.cols(), a.nnz(), outer.data(),
                                        a.col_idx().data(), a.values().data());
    Sparse m = view;
    m.makeCompressed();
    return m;
}

}  // namespace

template <typename I>
PeerRun eigen_multiply(const Csr<double, I>& a, const Csr<double, I>& b, int repeat) {
    using Sparse = Eigen::SparseMatrix<double, Eigen::RowMajor, I>;
    PeerRun run;
    run.detail = "Eigen::SparseMatrix<double, RowMajor> C = A * B (conservative product)";
    const Sparse ea = to_eigen(a);
    const Sparse eb = &a == &b ? ea : to_eigen(b);
    for (int r = -1; r < repeat; ++r) {
        Timer t;
        Sparse c = ea * eb;
        const double seconds = t.seconds();
        if (r >= 0) run.seconds.push_back(seconds);
        if (r == repeat - 1) {
            run.nnz = c.nonZeros();
            double sum = 0;
            for (I e = 0; e < I(c.nonZeros()); ++e) sum += c.valuePtr()[e];
            run.value_sum = sum;
        }
    }
    return run;
}

template PeerRun eigen_multiply(const Csr<double, std::int32_t>&, const Csr<double, std::int32_t>&,
                                int);
template PeerRun eigen_multiply(const Csr<double, std::int64_t>&, const Csr<double, std::int64_t>&,
                                int);

}  // namespace tessel::bench::spgemm_peers
