// Peer: Eigen 3 sparse * sparse (row-major), the conservative product: serial, columns sorted.
#include <Eigen/SparseCore>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/spgemm/peers.hpp"
#include "core/timer.hpp"

namespace tessel::bench::spgemm_peers {

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

template <typename I>
class EigenProduct final : public PeerProduct {
public:
    EigenProduct(const Csr<double, I>& a, const Csr<double, I>& b)
        : a_(to_eigen(a)), b_(&a == &b ? a_ : to_eigen(b)) {}
    std::string name() const override { return "Eigen A*B (serial)"; }
    std::string detail() const override {
        return "Eigen::SparseMatrix<double, RowMajor> C = A * B (conservative product, serial)";
    }
    double run() override {
        Timer t;
        Sparse c = a_ * b_;
        const double seconds = t.seconds();
        nnz = c.nonZeros();
        value_sum = 0;
        for (I e = 0; e < I(c.nonZeros()); ++e) value_sum += c.valuePtr()[e];
        return seconds;
    }

private:
    using Sparse = Eigen::SparseMatrix<double, Eigen::RowMajor, I>;
    Sparse a_, b_;
};

}  // namespace

std::string eigen_version() {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
           std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
}

template <typename I>
std::unique_ptr<PeerProduct> make_eigen(const Csr<double, I>& a, const Csr<double, I>& b) {
    return std::make_unique<EigenProduct<I>>(a, b);
}

template std::unique_ptr<PeerProduct> make_eigen(const Csr<double, std::int32_t>&,
                                                 const Csr<double, std::int32_t>&);
template std::unique_ptr<PeerProduct> make_eigen(const Csr<double, std::int64_t>&,
                                                 const Csr<double, std::int64_t>&);

}  // namespace tessel::bench::spgemm_peers
