// Sender-multiplies SpMM: local SpMM into partial rows, plan-driven reductions level by level,
// the global step of minibatch i in flight while minibatch i + 1 computes.
#include "core/dist/sender_multiplies_spmm.hpp"

#include <algorithm>

#include "core/comm/mpi_types.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm.hpp"

namespace tessel::dist {

namespace {

// Rows per progress poll: at least this many nonzeros between two MPI_Testall calls, and at
// most chunks_per_product polls per local product (each chunk is one parallel kernel call,
// which must give every thread whole blocks of rows).
constexpr size_type chunk_nonzeros = 1 << 15;
constexpr size_type chunks_per_product = 8;

template <typename V, typename I>
Csr<V, I> row_slice(const Csr<V, I>& a, size_type begin, size_type end) {
    const size_type e0 = a.row_ptr()[begin], e1 = a.row_ptr()[end];
    std::vector<size_type> ptr(a.row_ptr().begin() + begin, a.row_ptr().begin() + end + 1);
    for (auto& p : ptr) p -= e0;
    return Csr<V, I>(end - begin, a.cols(), std::move(ptr),
                     std::vector<I>(a.col_idx().begin() + e0, a.col_idx().begin() + e1),
                     std::vector<V>(a.values().begin() + e0, a.values().begin() + e1), "chunk");
}

}  // namespace

size_type round_minibatch(size_type requested, size_type k) {
    if (requested <= 0 || requested >= k) return std::max<size_type>(k, 1);
    const size_type factor = cpu::choose_register_factor(requested);
    return std::min(k, (requested + factor - 1) / factor * factor);
}

template <typename V, typename I>
SenderMultipliesShape sender_multiplies_shape(MPI_Comm data_comm,
                                              const std::vector<size_type>& row_offsets,
                                              const std::vector<size_type>& col_offsets,
                                              size_type k_begin, size_type k_end,
                                              const Csr<V, I>& local_a,
                                              const comm::ExchangePlan& pl) {
    const int d = comm::rank_of(data_comm), p = comm::size_of(data_comm);
    TESSEL_ENSURE_DIMS(static_cast<int>(row_offsets.size()) == p + 1 &&
                           static_cast<int>(col_offsets.size()) == p + 1,
                       "sender-multiplies: row and column offsets need " + std::to_string(p + 1) +
                           " entries");
    TESSEL_ENSURE_DIMS(0 <= k_begin && k_begin <= k_end, "sender-multiplies: bad k range");
    TESSEL_ENSURE_DIMS(!pl.steps.empty(), "sender-multiplies: the plan has no steps");
    TESSEL_ENSURE_DIMS(local_a.rows() == pl.in_rows() &&
                           local_a.cols() == col_offsets[d + 1] - col_offsets[d],
                       "sender-multiplies: local A is " + std::to_string(local_a.rows()) + "x" +
                           std::to_string(local_a.cols()) + ", plan and columns need " +
                           std::to_string(pl.in_rows()) + "x" +
                           std::to_string(col_offsets[d + 1] - col_offsets[d]));
    TESSEL_ENSURE_DIMS(pl.out_rows() == row_offsets[d + 1] - row_offsets[d],
                       "sender-multiplies: the plan's output is not this rank's rows");
    const size_type m = row_offsets.back();
    return {{0, m, col_offsets[d], col_offsets[d + 1]},
            {col_offsets[d], col_offsets[d + 1], k_begin, k_end},
            {row_offsets[d], row_offsets[d + 1], k_begin, k_end}};
}

template <typename V, typename I>
SenderMultipliesSpmm<V, I>::SenderMultipliesSpmm(MPI_Comm data_comm, const comm::Topology& topology,
                                                 std::vector<size_type> row_offsets,
                                                 std::vector<size_type> col_offsets,
                                                 size_type k_begin, size_type k_end,
                                                 Csr<V, I> local_a, comm::ExchangePlan plan,
                                                 const DistOptions& options)
    : SenderMultipliesBase<V, I, comm::ExchangeExecutor<V>>(data_comm, topology, row_offsets,
                                                            col_offsets, k_begin, k_end, local_a,
                                                            std::move(plan), options) {
    SpmmOperatorConfig local = this->options_.local;
    local.backend = resolve_backend(this->options_.backend);
    // Row chunks of about `target` nonzeros each, cut at whole row blocks of the format.
    const size_type target = std::max(chunk_nonzeros, local_a.nnz() / chunks_per_product);
    const size_type align = local.format == SparseFormat::tiled_ell ? local.tiles.block_rows : 1;
    chunk_rows_.push_back(0);
    for (size_type i = 0; i < local_a.rows(); ++i)
        if ((local_a.row_ptr()[i + 1] - local_a.row_ptr()[chunk_rows_.back()] >= target && (i + 1) % align == 0) ||
            i + 1 == local_a.rows())
            chunk_rows_.push_back(i + 1);
    for (std::size_t c = 0; c + 1 < chunk_rows_.size(); ++c)
        chunks_.emplace_back(row_slice(local_a, chunk_rows_[c], chunk_rows_[c + 1]), local);
}

template <typename V, typename I>
void SenderMultipliesSpmm<V, I>::local_spmm(
    DenseView<const V> b, DenseView<V> partial,
    typename comm::ExchangeExecutor<V>::Pending* in_flight) {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
        {
            auto timing = this->times_.scope("compute");
            const size_type r0 = chunk_rows_[c];
            DenseView<V> rows(partial.data + r0 * partial.ld, chunks_[c].rows(), partial.cols,
                              Layout::row_major, partial.ld);
            chunks_[c].multiply(b, rows);
        }
        if (in_flight) {
            auto timing = this->times_.scope("global");
            this->executor_.test(*in_flight);
        }
    }
}

template <typename V, typename I>
void SenderMultipliesSpmm<V, I>::multiply(const DenseBlocks<V>& b, DenseBlocks<V>& c) {
    this->prepare(b, c);
    const auto& pl = this->executor_.plan();
    const DenseMatrix<V>& bb = b.blocks[0];
    level_buffers_.resize(pl.steps.size());
    for (std::size_t s = 0; s < pl.steps.size(); ++s)
        level_buffers_[s].resize(static_cast<std::size_t>(pl.steps[s].in_rows * this->minibatch_));
    this->run_minibatches(
        [&](size_type k0, size_type w, auto* in_flight) {
            local_spmm(DenseView<const V>(bb.data() + k0, bb.rows(), w, Layout::row_major, bb.cols()),
                       DenseView<V>(level_buffers_[0].data(), pl.in_rows(), w), in_flight);
        },
        [&](int s) { return level_buffers_[s].data(); }, c.blocks[0].view());
}

#define TESSEL_INSTANTIATE(V, I)                                                               \
    template SenderMultipliesShape sender_multiplies_shape(                                    \
        MPI_Comm, const std::vector<size_type>&, const std::vector<size_type>&, size_type,     \
        size_type, const Csr<V, I>&, const comm::ExchangePlan&);                               \
    template class SenderMultipliesSpmm<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
