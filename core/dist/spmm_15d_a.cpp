// 1.5D A-stationary SpMM: Allgatherv of B in process columns, local SpMM, Reduce_scatter of C
// in process rows.
#include "core/dist/spmm_15d_a.hpp"

#include "core/comm/mpi_check.hpp"
#include "core/instantiate.hpp"

namespace tessel::dist {

template <typename V, typename I>
Spmm15dA<V, I>::Spmm15dA(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
                         std::vector<Csr<V, I>> local_a, const DistOptions& options)
    : GridSpmm<V, I>(DistAlgorithm::a15d, comm, topology, std::move(layout), std::move(local_a),
                     options) {}

template <typename V, typename I>
void Spmm15dA<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    const auto [l, r, cc, i, j] = this->start(b, c);
    const size_type k = l.k;
    const MPI_Datatype type = comm::mpi_datatype<V>();
    const auto& co = l.col_offsets;
    const auto& ro = l.row_offsets;
    const size_type bytes_per_row = k * static_cast<size_type>(sizeof(V));

    // B(j): the fine blocks j*r .. j*r+r-1 of process column j, gathered in order.
    const size_type n_j = co[(j + 1) * r] - co[j * r];
    if (b_gathered_.rows() != n_j || b_gathered_.cols() != k) b_gathered_ = DenseMatrix<V>(n_j, k);
    {
        auto timing = this->times_.scope("comm");
        std::vector<int> counts(r), displs(r);
        for (int q = 0; q < r; ++q) {
            counts[q] = comm::mpi_count((co[j * r + q + 1] - co[j * r + q]) * k);
            displs[q] = comm::mpi_count((co[j * r + q] - co[j * r]) * k);
            if (q != i) this->counters_.add_sent(this->cell(q, j), b.ranges[0].rows() * bytes_per_row);
        }
        TESSEL_MPI_CHECK(MPI_Allgatherv(b.blocks[0].data(), counts[i], type, b_gathered_.data(),
                                        counts.data(), displs.data(), type, this->col_comm_.get()));
    }

    // Cᵖ(i) = A(i, j)·B(j): the partial sums of all rows of grid row i.
    const size_type m_i = ro[(i + 1) * cc] - ro[i * cc];
    if (c_partial_.rows() != m_i || c_partial_.cols() != k) c_partial_ = DenseMatrix<V>(m_i, k);
    this->local_spmm(this->a_[0], b_gathered_.view(), c_partial_.view());

    // C(i*c + j) = Σ over process row i, each rank keeping its fine block.
    {
        auto timing = this->times_.scope("comm");
        std::vector<int> counts(cc);
        for (int q = 0; q < cc; ++q) {
            counts[q] = comm::mpi_count((ro[i * cc + q + 1] - ro[i * cc + q]) * k);
            if (q != j)
                this->counters_.add_sent(this->cell(i, q),
                                         (ro[i * cc + q + 1] - ro[i * cc + q]) * bytes_per_row);
        }
        TESSEL_MPI_CHECK(MPI_Reduce_scatter(c_partial_.data(), c.blocks[0].data(), counts.data(),
                                            type, MPI_SUM, this->row_comm_.get()));
    }
}

#define TESSEL_INSTANTIATE(V, I) template class Spmm15dA<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
