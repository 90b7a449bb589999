// 2D A-stationary SpMM: per stage, broadcast a block of B down each process column, multiply,
// reduce the partial block of C along each process row.
#include "core/dist/spmm_2d_a.hpp"

#include <algorithm>

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
    this->prepare(b, c);
    const auto& l = this->layout_;
    const int r = l.grid_rows, cc = l.grid_cols, i = this->i_, j = this->j_;
    const int stages = static_cast<int>(l.k_offsets.size()) - 1;
    const MPI_Datatype type = comm::mpi_datatype<V>();
    const size_type n_j = l.col_offsets[j + 1] - l.col_offsets[j];
    const size_type m_i = l.row_offsets[i + 1] - l.row_offsets[i];
    for (int s = 0; s < stages; ++s) {
        const size_type ks = l.k_offsets[s + 1] - l.k_offsets[s];
        const int b_root = s % r, c_root = s % cc;
        // B(j, s) down process column j.
        if (b_stage_.rows() != n_j || b_stage_.cols() != ks) b_stage_ = DenseMatrix<V>(n_j, ks);
        {
            auto timing = this->times_.scope("comm");
            if (i == b_root) {
                const auto& mine = b.blocks[s / r];
                std::copy(mine.data(), mine.data() + mine.size(), b_stage_.data());
                for (int q = 0; q < r; ++q)
                    if (q != i)
                        this->counters_.add_sent(this->cell(q, j),
                                                 n_j * ks * static_cast<size_type>(sizeof(V)));
            }
            TESSEL_MPI_CHECK(MPI_Bcast(b_stage_.data(), comm::mpi_count(n_j * ks), type, b_root,
                                       this->col_comm_.get()));
        }
        if (c_partial_.rows() != m_i || c_partial_.cols() != ks) c_partial_ = DenseMatrix<V>(m_i, ks);
        this->local_spmm(this->a_[0], b_stage_.view(), c_partial_.view());
        // Σ_j Cʲ(i, s) to (i, s mod c).
        auto timing = this->times_.scope("comm");
        V* target = j == c_root ? c.blocks[s / cc].data() : nullptr;
        if (j != c_root)
            this->counters_.add_sent(this->cell(i, c_root), m_i * ks * static_cast<size_type>(sizeof(V)));
        TESSEL_MPI_CHECK(MPI_Reduce(c_partial_.data(), target, comm::mpi_count(m_i * ks), type,
                                    MPI_SUM, c_root, this->row_comm_.get()));
    }
}

#define TESSEL_INSTANTIATE(V, I) template class Spmm2dA<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
