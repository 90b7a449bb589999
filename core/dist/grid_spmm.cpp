// Grid set-up shared by the 1.5D and 2D variants.
#include "core/dist/grid_spmm.hpp"

#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm.hpp"

namespace tessel::dist {

template <typename V, typename I>
GridSpmm<V, I>::GridSpmm(DistAlgorithm algorithm, MPI_Comm comm, const comm::Topology& topology,
                         DistLayout layout, std::vector<Csr<V, I>> local_a,
                         const DistOptions& options)
    : algorithm_(algorithm), comm_(comm::Communicator::dup(comm)), layout_(std::move(layout)),
      a_(std::move(local_a)), options_(options) {
    const int size = comm::size_of(comm);
    rank_ = comm::rank_of(comm);
    TESSEL_ENSURE_DIMS(layout_.ranks() == size,
                       std::string(to_string(algorithm)) + ": grid " +
                           std::to_string(layout_.grid_rows) + "x" +
                           std::to_string(layout_.grid_cols) + " needs " +
                           std::to_string(layout_.ranks()) + " ranks, communicator has " +
                           std::to_string(size));
    TESSEL_ENSURE_DIMS(topology.ranks() == size, "grid spmm: topology and communicator differ in size");
    layout_.validate(algorithm);
    i_ = rank_ / layout_.grid_cols;
    j_ = rank_ % layout_.grid_cols;
    row_comm_ = comm::Communicator::split(comm_.get(), i_, j_);
    col_comm_ = comm::Communicator::split(comm_.get(), j_, i_);
    this->a_ranges_ = dist::a_ranges(algorithm, layout_, rank_);
    this->b_ranges_ = dist::b_ranges(algorithm, layout_, rank_);
    this->c_ranges_ = dist::c_ranges(algorithm, layout_, rank_);
    TESSEL_ENSURE_DIMS(a_.size() == this->a_ranges_.size(),
                       std::string(to_string(algorithm)) + ": rank " + std::to_string(rank_) +
                           " needs " + std::to_string(this->a_ranges_.size()) + " blocks of A, got " +
                           std::to_string(a_.size()));
    for (std::size_t b = 0; b < a_.size(); ++b)
        TESSEL_ENSURE_DIMS(a_[b].rows() == this->a_ranges_[b].rows() &&
                               a_[b].cols() == this->a_ranges_[b].cols(),
                           std::string(to_string(algorithm)) + ": block " + std::to_string(b) +
                               " of A has the wrong shape");
    this->counters_ = comm::CommCounters(topology, rank_);
    if (options_.backend == Backend::automatic) options_.backend = resolve_backend(Backend::automatic);
    // A-stationary variants multiply their own blocks every call: keep them on the GPU. The
    // C-stationary ones multiply stages broadcast to them, copied per call.
    const bool a_stationary = algorithm == DistAlgorithm::a15d || algorithm == DistAlgorithm::a2d ||
                              algorithm == DistAlgorithm::a2d_async;
    if (options_.backend == Backend::cuda && a_stationary)
        for (const auto& block : a_) device_a_.emplace_back(block, SpmmOperatorConfig{Backend::cuda, SparseFormat::csr});
}

template <typename V, typename I>
void GridSpmm<V, I>::local_spmm(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c) {
    auto timing = this->times_.scope("compute");
    for (std::size_t i = 0; i < device_a_.size(); ++i)
        if (&a == &a_[i]) return device_a_[i].multiply(b, c);
    tessel::spmm(a, b, c, Epilogue<V>{}, options_.backend);
}

template <typename V, typename I>
std::vector<size_type> GridSpmm<V, I>::stage_nnz_along_row() const {
    const int stages = static_cast<int>(layout_.col_offsets.size()) - 1;
    std::vector<long long> counts(stages, 0);
    for (std::size_t b = 0; b < a_.size(); ++b) counts[j_ + b * layout_.grid_cols] = a_[b].nnz();
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts.data(), stages, MPI_LONG_LONG, MPI_SUM, row_comm_.get()));
    return {counts.begin(), counts.end()};
}

#define TESSEL_INSTANTIATE(V, I) template class GridSpmm<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
