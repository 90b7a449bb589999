// One-sided 2D C-stationary SpMM: MPI_Rget of A and B blocks (prefetched one stage ahead) into
// double buffers, accumulation into the local block of C.
#include "core/dist/spmm_2d_c_async.hpp"

#include <algorithm>
#include <array>

#include "core/comm/mpi_check.hpp"
#include "core/instantiate.hpp"

namespace tessel::dist {

template <typename V, typename I>
Spmm2dCAsync<V, I>::Spmm2dCAsync(MPI_Comm comm, const comm::Topology& topology, DistLayout layout,
                                 std::vector<Csr<V, I>> local_a, const DistOptions& options)
    : GridSpmm<V, I>(DistAlgorithm::c2d_async, comm, topology, std::move(layout),
                     std::move(local_a), options) {
    const auto& l = this->layout_;
    const int r = l.grid_rows, cc = l.grid_cols, i = this->i_, j = this->j_;
    const int stages = static_cast<int>(l.col_offsets.size()) - 1;
    const size_type m_i = extent(l.row_offsets, i);
    const size_type k_j = extent(l.k_offsets, j);

    stage_nnz_ = this->stage_nnz_along_row();
    ptr_offset_.assign(stages, 0);
    nz_offset_.assign(stages, 0);
    b_offset_.assign(stages, 0);
    for (int s = 0; s < stages; ++s) {
        for (int t = s % cc; t < s; t += cc) {
            ptr_offset_[s] += m_i + 1;
            nz_offset_[s] += stage_nnz_[t];
        }
        for (int t = s % r; t < s; t += r) b_offset_[s] += extent(l.col_offsets, t) * k_j;
    }

    size_type ptr_total = 0, nz_total = 0, b_total = 0;
    for (const auto& a : this->a_) {
        ptr_total += a.rows() + 1;
        nz_total += a.nnz();
    }
    for (const auto& rg : this->b_ranges_) b_total += rg.rows() * rg.cols();
    ptr_win_ = comm::Window<size_type>(this->comm_.get(), ptr_total);
    col_win_ = comm::Window<I>(this->comm_.get(), nz_total);
    val_win_ = comm::Window<V>(this->comm_.get(), nz_total);
    b_win_ = comm::Window<V>(this->comm_.get(), b_total);
    size_type* p = ptr_win_.data();
    I* ci = col_win_.data();
    V* va = val_win_.data();
    for (const auto& a : this->a_) {
        p = std::copy(a.row_ptr().begin(), a.row_ptr().end(), p);
        ci = std::copy(a.col_idx().begin(), a.col_idx().end(), ci);
        va = std::copy(a.values().begin(), a.values().end(), va);
    }
    // Published once: A is stationary, the windows are only read from now on.
    for (MPI_Win w : {ptr_win_.get(), col_win_.get(), val_win_.get()}) {
        TESSEL_MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, this->rank_, 0, w));
        TESSEL_MPI_CHECK(MPI_Win_unlock(this->rank_, w));
    }
    TESSEL_MPI_CHECK(MPI_Barrier(this->comm_.get()));
}

template <typename V, typename I>
void Spmm2dCAsync<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    const auto [l, r, cc, i, j] = this->start(b, c);
    const int stages = static_cast<int>(l.col_offsets.size()) - 1;
    const size_type m_i = extent(l.row_offsets, i), k_j = extent(l.k_offsets, j);

    comm::LockAll ptr_epoch(ptr_win_.get()), col_epoch(col_win_.get()), val_epoch(val_win_.get()),
        b_epoch(b_win_.get());
    {
        auto timing = this->times_.scope("comm");
        V* at = b_win_.data();
        for (const auto& blk : b.blocks) at = std::copy(blk.data(), blk.data() + blk.size(), at);
        TESSEL_MPI_CHECK(MPI_Win_sync(b_win_.get()));
        TESSEL_MPI_CHECK(MPI_Barrier(this->comm_.get()));
    }

    struct Fetched {
        std::vector<size_type> ptr;
        std::vector<I> col;
        std::vector<V> val, b;
        std::array<MPI_Request, 4> req{MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                                       MPI_REQUEST_NULL};
    };
    std::array<Fetched, 2> buf;
    auto stage_of = [&](int t) { return (t + i + j) % stages; };
    // Rget (or a local copy when this rank owns the block), counted at the origin.
    auto get = [&]<typename T>(std::vector<T>& dst, const comm::Window<T>& win, int owner,
                               size_type offset, size_type count, MPI_Request& req) {
        dst.resize(static_cast<std::size_t>(count));
        this->counters_.add_sent(owner, count * static_cast<size_type>(sizeof(T)));
        if (owner == this->rank_) {
            std::copy_n(win.data() + offset, count, dst.data());
            return;
        }
        const MPI_Datatype type = comm::mpi_datatype<T>();
        TESSEL_MPI_CHECK(MPI_Rget(dst.data(), comm::mpi_count(count), type, owner, offset,
                                  comm::mpi_count(count), type, win.get(), &req));
    };
    auto fetch = [&](int t) {
        const int s = stage_of(t);
        auto& f = buf[t % 2];
        const int a_owner = this->cell(i, s % cc), b_owner = this->cell(s % r, j);
        get(f.ptr, ptr_win_, a_owner, ptr_offset_[s], m_i + 1, f.req[0]);
        get(f.col, col_win_, a_owner, nz_offset_[s], stage_nnz_[s], f.req[1]);
        get(f.val, val_win_, a_owner, nz_offset_[s], stage_nnz_[s], f.req[2]);
        get(f.b, b_win_, b_owner, b_offset_[s],
            extent(l.col_offsets, s) * k_j, f.req[3]);
    };

    auto& cb = c.blocks[0];
    cb.fill(V{0});
    DenseMatrix<V> part(m_i, k_j);
    if (stages > 0) {
        auto timing = this->times_.scope("comm");
        fetch(0);
    }
    for (int t = 0; t < stages; ++t) {
        const int s = stage_of(t);
        auto& f = buf[t % 2];
        {
            auto timing = this->times_.scope("comm");
            TESSEL_MPI_CHECK(MPI_Waitall(4, f.req.data(), MPI_STATUSES_IGNORE));
            if (t + 1 < stages) fetch(t + 1);
        }
        const size_type n_s = extent(l.col_offsets, s);
        const Csr<V, I> a_stage(m_i, n_s, f.ptr, f.col, f.val, "2d-c-async stage block");
        this->local_spmm(a_stage, DenseView<const V>(f.b.data(), n_s, k_j), part.view());
        for (size_type e = 0; e < cb.size(); ++e) cb.data()[e] += part.data()[e];
    }
    auto timing = this->times_.scope("comm");
    // Nobody may overwrite its B window (next multiply) while another rank still reads it.
    TESSEL_MPI_CHECK(MPI_Barrier(this->comm_.get()));
}

#define TESSEL_INSTANTIATE(V, I) template class Spmm2dCAsync<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
