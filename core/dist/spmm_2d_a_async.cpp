// One-sided 2D A-stationary SpMM: MPI_Rget of B blocks (prefetched one stage ahead) and
// MPI_Raccumulate of partial C blocks into their owners, in one passive-target epoch.
#include "core/dist/spmm_2d_a_async.hpp"

#include <algorithm>
#include <array>

#include "core/comm/mpi_check.hpp"
#include "core/instantiate.hpp"

namespace tessel::dist {

namespace {

// Element offset of every block in its owner's concatenated storage, indexed like `ranges`.
size_type total_elements(const std::vector<BlockRange>& ranges) {
    size_type total = 0;
    for (const auto& r : ranges) total += r.rows() * r.cols();
    return total;
}

}  // namespace

template <typename V, typename I>
Spmm2dAAsync<V, I>::Spmm2dAAsync(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
                                 std::vector<Csr<V, I>> local_a, const DistOptions& options)
    : GridSpmm<V, I>(DistAlgorithm::a2d_async, comm, topology, std::move(layout),
                     std::move(local_a), options) {
    const auto& l = this->layout_;
    const int r = l.grid_rows, cc = l.grid_cols, i = this->i_, j = this->j_;
    const int stages = static_cast<int>(l.k_offsets.size()) - 1;
    const size_type n_j = extent(l.col_offsets, j);
    const size_type m_i = extent(l.row_offsets, i);
    // B(j, s) sits at (s mod r, j) after the blocks s' ≡ s (mod r), s' < s; likewise C(i, s).
    b_offset_.assign(stages, 0);
    c_offset_.assign(stages, 0);
    for (int s = 0; s < stages; ++s) {
        for (int t = s % r; t < s; t += r) b_offset_[s] += n_j * extent(l.k_offsets, t);
        for (int t = s % cc; t < s; t += cc) c_offset_[s] += m_i * extent(l.k_offsets, t);
    }
    b_win_ = comm::Window<V>(this->comm_.get(), total_elements(this->b_ranges_));
    c_win_ = comm::Window<V>(this->comm_.get(), total_elements(this->c_ranges_));
}

template <typename V, typename I>
void Spmm2dAAsync<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    const auto [l, r, cc, i, j] = this->start(b, c);
    const int stages = static_cast<int>(l.k_offsets.size()) - 1;
    const MPI_Datatype type = comm::mpi_datatype<V>();
    const size_type n_j = extent(l.col_offsets, j), m_i = extent(l.row_offsets, i);
    const size_type value_bytes = static_cast<size_type>(sizeof(V));

    comm::LockAll b_epoch(b_win_.get()), c_epoch(c_win_.get());
    {
        auto timing = this->times_.scope("comm");
        V* at = b_win_.data();
        for (const auto& blk : b.blocks) at = std::copy(blk.data(), blk.data() + blk.size(), at);
        std::fill(c_win_.data(), c_win_.data() + c_win_.size(), V{0});
        TESSEL_MPI_CHECK(MPI_Win_sync(b_win_.get()));
        TESSEL_MPI_CHECK(MPI_Win_sync(c_win_.get()));
        TESSEL_MPI_CHECK(MPI_Barrier(this->comm_.get()));
    }

    std::array<std::vector<V>, 2> fetched, partial;
    std::array<MPI_Request, 2> get_req{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    std::array<MPI_Request, 2> acc_req{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    auto stage_of = [&](int t) { return (t + i + j) % stages; };
    auto fetch = [&](int t) {
        const int s = stage_of(t), owner_i = s % r;
        const size_type count = n_j * extent(l.k_offsets, s);
        auto& buf = fetched[t % 2];
        buf.resize(static_cast<std::size_t>(count));
        const int owner = this->cell(owner_i, j);
        this->counters_.add_sent(owner, count * value_bytes);
        if (owner == this->rank_) {  // our own block: no transfer
            std::copy_n(b_win_.data() + b_offset_[s], count, buf.data());
            return;
        }
        TESSEL_MPI_CHECK(MPI_Rget(buf.data(), comm::mpi_count(count), type, owner, b_offset_[s],
                                  comm::mpi_count(count), type, b_win_.get(), &get_req[t % 2]));
    };

    if (stages > 0) {
        auto timing = this->times_.scope("comm");
        fetch(0);
    }
    for (int t = 0; t < stages; ++t) {
        const int s = stage_of(t);
        const size_type ks = extent(l.k_offsets, s);
        {
            auto timing = this->times_.scope("comm");
            TESSEL_MPI_CHECK(MPI_Wait(&get_req[t % 2], MPI_STATUS_IGNORE));
            if (t + 1 < stages) fetch(t + 1);
            TESSEL_MPI_CHECK(MPI_Wait(&acc_req[t % 2], MPI_STATUS_IGNORE));
        }
        auto& part = partial[t % 2];
        part.resize(static_cast<std::size_t>(m_i * ks));
        this->local_spmm(this->a_[0], DenseView<const V>(fetched[t % 2].data(), n_j, ks),
                         DenseView<V>(part.data(), m_i, ks));
        auto timing = this->times_.scope("comm");
        const int owner = this->cell(i, s % cc);
        this->counters_.add_sent(owner, m_i * ks * value_bytes);
        TESSEL_MPI_CHECK(MPI_Raccumulate(part.data(), comm::mpi_count(m_i * ks), type, owner,
                                         c_offset_[s], comm::mpi_count(m_i * ks), type, MPI_SUM,
                                         c_win_.get(), &acc_req[t % 2]));
    }
    {
        auto timing = this->times_.scope("comm");
        TESSEL_MPI_CHECK(MPI_Waitall(2, acc_req.data(), MPI_STATUSES_IGNORE));
        TESSEL_MPI_CHECK(MPI_Win_flush_all(c_win_.get()));
        TESSEL_MPI_CHECK(MPI_Barrier(this->comm_.get()));
        TESSEL_MPI_CHECK(MPI_Win_sync(c_win_.get()));
    }
    const V* at = c_win_.data();
    for (auto& blk : c.blocks) {
        std::copy_n(at, blk.size(), blk.data());
        at += blk.size();
    }
}

#define TESSEL_INSTANTIATE(V, I) template class Spmm2dAAsync<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
