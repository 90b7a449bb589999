// 2D A-stationary SpMM: per stage, broadcast a block of B down each process column, multiply,
// reduce the partial block of C along each process row.
#include "core/dist/spmm_2d_a.hpp"

#include "core/comm/mpi_check.hpp"
#include "core/instantiate.hpp"

namespace tessel::dist {

template <typename V, typename I>
Spmm2dA<V, I>::Spmm2dA(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
                       std::vector<Csr<V, I>> local_a, const DistOptions& options)
    : GridSpmm<V, I>(DistAlgorithm::a2d, comm, topology, std::move(layout), std::move(local_a),
                     options) {}

template <typename V, typename I>
void Spmm2dA<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    const auto [l, r, cc, i, j] = this->start(b, c);
    const size_type n_j = extent(l.col_offsets, j), m_i = extent(l.row_offsets, i);
    for (int s = 0; s + 1 < static_cast<int>(l.k_offsets.size()); ++s) {
        const size_type ks = extent(l.k_offsets, s);
        const int b_root = s % r, c_root = s % cc;
        // B(j, s) down process column j.
        if (b_stage_.rows() != n_j || b_stage_.cols() != ks) b_stage_ = DenseMatrix<V>(n_j, ks);
        this->broadcast_counted(i == b_root ? b.blocks[s / r].data() : nullptr, b_stage_.data(), n_j * ks, b_root,
                                Along::column);
        if (c_partial_.rows() != m_i || c_partial_.cols() != ks) c_partial_ = DenseMatrix<V>(m_i, ks);
        this->local_spmm(this->a_[0], b_stage_.view(), c_partial_.view());
        // Σ_j Cʲ(i, s) to (i, s mod c).
        auto timing = this->times_.scope("comm");
        V* target = j == c_root ? c.blocks[s / cc].data() : nullptr;
        if (j != c_root)
            this->counters_.add_sent(this->cell(i, c_root), m_i * ks * static_cast<size_type>(sizeof(V)));
        TESSEL_MPI_CHECK(MPI_Reduce(c_partial_.data(), target, comm::mpi_count(m_i * ks), comm::mpi_datatype<V>(),
                                    MPI_SUM, c_root, this->row_comm_.get()));
    }
}

#define TESSEL_INSTANTIATE(V, I) template class Spmm2dA<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
