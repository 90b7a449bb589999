// 2D C-stationary SpMM (SUMMA): per stage, broadcast a block of A along process rows and a block
// of B down process columns, and accumulate into the stationary block of C.
#include "core/dist/spmm_2d_c.hpp"

#include "core/comm/mpi_check.hpp"
#include "core/instantiate.hpp"

namespace tessel::dist {

template <typename V, typename I>
Spmm2dC<V, I>::Spmm2dC(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
                       std::vector<Csr<V, I>> local_a, const DistOptions& options)
    : GridSpmm<V, I>(DistAlgorithm::c2d, comm, topology, std::move(layout), std::move(local_a),
                     options) {
    stage_nnz_ = this->stage_nnz_along_row();
}

template <typename V, typename I>
void Spmm2dC<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    const auto [l, r, cc, i, j] = this->start(b, c);
    const size_type m_i = extent(l.row_offsets, i), k_j = extent(l.k_offsets, j);
    auto& cb = c.blocks[0];
    cb.fill(V{0});
    if (c_partial_.rows() != m_i || c_partial_.cols() != k_j) c_partial_ = DenseMatrix<V>(m_i, k_j);
    for (int s = 0; s + 1 < static_cast<int>(l.col_offsets.size()); ++s) {
        const size_type n_s = extent(l.col_offsets, s), nnz = stage_nnz_[s];
        const int a_root = s % cc, b_root = s % r;
        // A(i, s) along process row i, B(s, j) down process column j.
        std::vector<size_type> row_ptr(static_cast<std::size_t>(m_i + 1));
        std::vector<I> col(static_cast<std::size_t>(nnz));
        std::vector<V> val(static_cast<std::size_t>(nnz));
        const Csr<V, I>* mine = j == a_root ? &this->a_[s / cc] : nullptr;
        this->count_broadcast((m_i + 1) * static_cast<size_type>(sizeof(size_type)) +
                                  nnz * static_cast<size_type>(sizeof(I) + sizeof(V)),
                              a_root, Along::row);
        this->broadcast(mine ? mine->row_ptr().data() : nullptr, row_ptr.data(), m_i + 1, a_root, Along::row);
        this->broadcast(mine ? mine->col_idx().data() : nullptr, col.data(), nnz, a_root, Along::row);
        this->broadcast(mine ? mine->values().data() : nullptr, val.data(), nnz, a_root, Along::row);
        if (b_stage_.rows() != n_s || b_stage_.cols() != k_j) b_stage_ = DenseMatrix<V>(n_s, k_j);
        this->broadcast_counted(i == b_root ? b.blocks[s / r].data() : nullptr, b_stage_.data(), n_s * k_j, b_root,
                                Along::column);
        const Csr<V, I> a_stage(m_i, n_s, std::move(row_ptr), std::move(col), std::move(val), "2d-c stage block");
        this->local_spmm(a_stage, b_stage_.view(), c_partial_.view());
        for (size_type e = 0; e < cb.size(); ++e) cb.data()[e] += c_partial_.data()[e];
    }
}

#define TESSEL_INSTANTIATE(V, I) template class Spmm2dC<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
