// 2D C-stationary SpMM (SUMMA): per stage, broadcast a block of A along process rows and a block
// of B down process columns, and accumulate into the stationary block of C.
#include "core/dist/spmm_2d_c.hpp"

#include <algorithm>

#include "core/comm/mpi_check.hpp"
#include "core/instantiate.hpp"

namespace tessel::dist {

template <typename V, typename I>
Spmm2dC<V, I>::Spmm2dC(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
                       std::vector<Csr<V, I>> local_a, const DistOptions& options)
    : GridSpmm<V, I>(DistAlgorithm::c2d, comm, topology, std::move(layout), std::move(local_a),
                     options) {
    const int stages = static_cast<int>(this->layout_.col_offsets.size()) - 1;
    const int cc = this->layout_.grid_cols;
    stage_nnz_.assign(stages, 0);
    for (std::size_t b = 0; b < this->a_.size(); ++b) stage_nnz_[this->j_ + b * cc] = this->a_[b].nnz();
    std::vector<long long> counts(stage_nnz_.begin(), stage_nnz_.end());
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts.data(), stages, MPI_LONG_LONG, MPI_SUM,
                                   this->row_comm_.get()));
    std::copy(counts.begin(), counts.end(), stage_nnz_.begin());
}

template <typename V, typename I>
void Spmm2dC<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    this->prepare(b, c);
    const auto& l = this->layout_;
    const int r = l.grid_rows, cc = l.grid_cols, i = this->i_, j = this->j_;
    const int stages = static_cast<int>(l.col_offsets.size()) - 1;
    const MPI_Datatype type = comm::mpi_datatype<V>();
    const size_type m_i = l.row_offsets[i + 1] - l.row_offsets[i];
    const size_type k_j = l.k_offsets[j + 1] - l.k_offsets[j];
    auto& cb = c.blocks[0];
    cb.fill(V{0});
    if (c_partial_.rows() != m_i || c_partial_.cols() != k_j) c_partial_ = DenseMatrix<V>(m_i, k_j);
    for (int s = 0; s < stages; ++s) {
        const size_type n_s = l.col_offsets[s + 1] - l.col_offsets[s];
        const size_type nnz = stage_nnz_[s];
        const int a_root = s % cc, b_root = s % r;
        std::vector<size_type> row_ptr(static_cast<std::size_t>(m_i + 1));
        std::vector<I> col(static_cast<std::size_t>(nnz));
        std::vector<V> val(static_cast<std::size_t>(nnz));
        if (b_stage_.rows() != n_s || b_stage_.cols() != k_j) b_stage_ = DenseMatrix<V>(n_s, k_j);
        {
            auto timing = this->times_.scope("comm");
            if (j == a_root) {
                const auto& mine = this->a_[s / cc];
                row_ptr = mine.row_ptr();
                col = mine.col_idx();
                val = mine.values();
                const size_type bytes = (m_i + 1) * static_cast<size_type>(sizeof(size_type)) +
                                        nnz * static_cast<size_type>(sizeof(I) + sizeof(V));
                for (int q = 0; q < cc; ++q)
                    if (q != j) this->counters_.add_sent(this->cell(i, q), bytes);
            }
            MPI_Comm row = this->row_comm_.get();
            TESSEL_MPI_CHECK(MPI_Bcast(row_ptr.data(), comm::mpi_count(m_i + 1),
                                       comm::mpi_datatype<size_type>(), a_root, row));
            TESSEL_MPI_CHECK(MPI_Bcast(col.data(), comm::mpi_count(nnz), comm::mpi_datatype<I>(),
                                       a_root, row));
            TESSEL_MPI_CHECK(MPI_Bcast(val.data(), comm::mpi_count(nnz), type, a_root, row));
            if (i == b_root) {
                const auto& mine = b.blocks[s / r];
                std::copy(mine.data(), mine.data() + mine.size(), b_stage_.data());
                for (int q = 0; q < r; ++q)
                    if (q != i)
                        this->counters_.add_sent(this->cell(q, j),
                                                 n_s * k_j * static_cast<size_type>(sizeof(V)));
            }
            TESSEL_MPI_CHECK(MPI_Bcast(b_stage_.data(), comm::mpi_count(n_s * k_j), type, b_root,
                                       this->col_comm_.get()));
        }
        const Csr<V, I> a_stage(m_i, n_s, std::move(row_ptr), std::move(col), std::move(val),
                                "2d-c stage block");
        this->local_spmm(a_stage, b_stage_.view(), c_partial_.view());
        for (size_type e = 0; e < cb.size(); ++e) cb.data()[e] += c_partial_.data()[e];
    }
}

#define TESSEL_INSTANTIATE(V, I) template class Spmm2dC<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
