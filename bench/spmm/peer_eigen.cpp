// Peer: Eigen 3 sparse (row-major CSR) times a row-major dense matrix. Eigen runs this
// product in parallel over rows with OpenMP when compiled with -fopenmp.
#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <string>
#include <vector>

#include "bench/spmm/peers.hpp"

namespace tessel::bench::peers {

std::string eigen_version() {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
           std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
}

void eigen_initialize(int threads) {
    Eigen::initParallel();
    Eigen::setNbThreads(threads);
}

namespace {

template <typename V>
class EigenKernel final : public Kernel<V> {
public:
    using Sparse = Eigen::SparseMatrix<V, Eigen::RowMajor, Index>;
    using Dense = Eigen::Matrix<V, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    // Row-major dense views over the benchmark's own buffers (leading dimension = stride).
    using Stride = Eigen::OuterStride<>;
    using ConstMap = Eigen::Map<const Dense, Eigen::Unaligned, Stride>;
    using Map = Eigen::Map<Dense, Eigen::Unaligned, Stride>;

    std::string name() const override { return "eigen"; }
    Family family() const override { return Family::peer; }
    std::string details() const override {
        return "SparseMatrix<RowMajor, int32> * Matrix<RowMajor>, nbThreads=" +
               std::to_string(Eigen::nbThreads());
    }
    void prepare(const Csr<V, Index>& a) override {
        // Eigen's outer index has the index type; copy row_ptr into it, then copy the matrix.
        std::vector<Index> outer(a.row_ptr().begin(), a.row_ptr().end());
        const Eigen::Map<const Sparse> view(a.rows(), a.cols(), a.nnz(), outer.data(),
                                            a.col_idx().data(), a.values().data());
        a_ = view;
        a_.makeCompressed();
        bytes_ = csr_bytes(a);
    }
    double a_bytes() const override { return bytes_; }
    void multiply() override {
        const ConstMap b(this->b_.data, this->b_.rows, this->b_.cols, Stride(this->b_.ld));
        Map c(this->c_.data, this->c_.rows, this->c_.cols, Stride(this->c_.ld));
        c.noalias() = a_ * b;
    }

private:
    Sparse a_;
    double bytes_ = 0;
};

}  // namespace

template <typename V>
std::unique_ptr<Kernel<V>> make_eigen() {
    return std::make_unique<EigenKernel<V>>();
}
template std::unique_ptr<Kernel<float>> make_eigen<float>();
template std::unique_ptr<Kernel<double>> make_eigen<double>();

}  // namespace tessel::bench::peers
