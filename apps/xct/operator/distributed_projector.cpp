// MemXCT data parallelism: each data rank owns ordered pixel and ray ranges and multiplies as
// a sender; partial results are reduced by core/dist's sender-multiplies SpMM.
#include <omp.h>

#include <algorithm>
#include <numeric>

#include "apps/xct/operator/projector.hpp"
#include "core/comm/cuda_aware.hpp"
#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/error.hpp"
#include "partition/balanced_partition.hpp"
#include "partition/reduction_plan.hpp"

namespace tessel::xct {

namespace {

// Displacements of counts, as the int arrays MPI takes.
std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> displ(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const long long next = static_cast<long long>(displ[i]) + counts[i];
        displ[i + 1] = comm::mpi_count(next);
    }
    return displ;
}

// The rows of `a` that hold entries, as a matrix of only those rows; `kept` gets their indices.
template <typename V>
Csr<V, Index> compress_rows(const Csr<V, Index>& a, std::vector<size_type>& kept) {
    kept.clear();
    for (size_type i = 0; i < a.rows(); ++i)
        if (a.row_nnz(i) > 0) kept.push_back(i);
    std::vector<size_type> ptr(kept.size() + 1, 0);
    for (std::size_t r = 0; r < kept.size(); ++r) ptr[r + 1] = ptr[r] + a.row_nnz(kept[r]);
    // Empty rows hold nothing, so the entries are already in place.
    return Csr<V, Index>(static_cast<size_type>(kept.size()), a.cols(), std::move(ptr), a.col_idx(), a.values(),
                         "footprint block");
}

// Every rank's list, gathered on every rank of `comm`.
std::vector<std::vector<size_type>> allgather_lists(MPI_Comm comm, const std::vector<size_type>& mine) {
    const int p = comm::size_of(comm);
    long long length = static_cast<long long>(mine.size());
    std::vector<long long> lengths(p);
    TESSEL_MPI_CHECK(MPI_Allgather(&length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, comm));
    std::vector<int> counts(p);
    for (int q = 0; q < p; ++q) counts[q] = comm::mpi_count(lengths[q]);
    const auto displ = displacements(counts);
    std::vector<size_type> all(static_cast<std::size_t>(displ.back()));
    TESSEL_MPI_CHECK(MPI_Allgatherv(mine.data(), counts[comm::rank_of(comm)], MPI_INT64_T, all.data(), counts.data(),
                                    displ.data(), MPI_INT64_T, comm));
    std::vector<std::vector<size_type>> lists(p);
    for (int q = 0; q < p; ++q) lists[q].assign(all.begin() + displ[q], all.begin() + displ[q + 1]);
    return lists;
}

// Steps 1-3: entries per ray counted by even shares (everybody gets all counts), ray ranges
// balanced by nonzeros (+1 so that empty rays are spread too), this rank's rays traced.
template <typename V>
Csr<V, Index> trace_balanced_rays(MPI_Comm comm, const Geometry& g, const Ordering& o,
                                  std::vector<size_type>& ray_offsets) {
    const int rank = comm::rank_of(comm), size = comm::size_of(comm);
    const auto even = partition::even_offsets(g.num_rays(), size);
    const auto mine = count_rows(g, o, even[rank], even[rank + 1]);
    std::vector<int> counts(size);
    for (int q = 0; q < size; ++q) counts[q] = comm::mpi_count(even[q + 1] - even[q]);
    const auto displ = displacements(counts);
    std::vector<size_type> ray_nnz(static_cast<std::size_t>(g.num_rays()));
    TESSEL_MPI_CHECK(MPI_Allgatherv(mine.data(), counts[rank], MPI_INT64_T, ray_nnz.data(), counts.data(),
                                    displ.data(), MPI_INT64_T, comm));
    std::vector<size_type> weight(ray_nnz.size());
    for (std::size_t i = 0; i < ray_nnz.size(); ++i) weight[i] = ray_nnz[i] + 1;
    ray_offsets = partition::balanced_offsets(weight, size);
    const size_type r0 = ray_offsets[rank], r1 = ray_offsets[rank + 1];
    return build_rows<V>(g, o, r0, r1, std::span<const size_type>(ray_nnz).subspan(r0, r1 - r0));
}

// Step 4: pixel ranges balanced by the column counts summed over the ranks (at: all pixels x
// this rank's rays).
template <typename V>
std::vector<size_type> balanced_pixel_offsets(MPI_Comm comm, const Csr<V, Index>& at) {
    const size_type num_pixels = at.rows();
    std::vector<size_type> col_nnz(static_cast<std::size_t>(num_pixels));
    for (size_type j = 0; j < num_pixels; ++j) col_nnz[j] = at.row_nnz(j);
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, col_nnz.data(), comm::mpi_count(num_pixels), MPI_INT64_T,
                                   MPI_SUM, comm));
    for (auto& w : col_nnz) ++w;
    return partition::balanced_offsets(col_nnz, comm::size_of(comm));
}

// What step 5 receives: per sender q, the lengths of its rows for this rank's pixels and their
// entries (global ray columns), at the displacements below.
template <typename V>
struct PixelRows {
    std::vector<size_type> len;
    std::vector<Index> col;
    std::vector<V> val;
    std::vector<int> rows_displ, entries_displ;
};

// Step 5: the entries of pixel range q go to rank q (rows of `at` are pixels, so each
// destination's entries are contiguous); columns shifted by this rank's first ray r0.
template <typename V>
PixelRows<V> exchange_pixel_rows(MPI_Comm comm, const Csr<V, Index>& at, const std::vector<size_type>& pixel_offsets,
                                 size_type r0) {
    const int rank = comm::rank_of(comm), size = comm::size_of(comm);
    std::vector<int> send_rows(size), send_entries(size), recv_rows(size), recv_entries(size);
    for (int q = 0; q < size; ++q) {
        send_rows[q] = comm::mpi_count(pixel_offsets[q + 1] - pixel_offsets[q]);
        send_entries[q] = comm::mpi_count(at.row_ptr()[pixel_offsets[q + 1]] - at.row_ptr()[pixel_offsets[q]]);
    }
    TESSEL_MPI_CHECK(MPI_Alltoall(send_entries.data(), 1, MPI_INT, recv_entries.data(), 1, MPI_INT, comm));
    for (int q = 0; q < size; ++q) recv_rows[q] = comm::mpi_count(pixel_offsets[rank + 1] - pixel_offsets[rank]);
    std::vector<size_type> row_len(static_cast<std::size_t>(at.rows()));
    for (size_type j = 0; j < at.rows(); ++j) row_len[j] = at.row_nnz(j);
    std::vector<Index> send_col(at.col_idx().size());
#pragma omp parallel for schedule(static)
    for (size_type e = 0; e < at.nnz(); ++e) send_col[e] = static_cast<Index>(at.col_idx()[e] + r0);
    const auto send_rows_displ = displacements(send_rows), send_entries_displ = displacements(send_entries);
    PixelRows<V> got;
    got.rows_displ = displacements(recv_rows);
    got.entries_displ = displacements(recv_entries);
    got.len.resize(static_cast<std::size_t>(got.rows_displ.back()));
    got.col.resize(static_cast<std::size_t>(got.entries_displ.back()));
    got.val.resize(static_cast<std::size_t>(got.entries_displ.back()));
    TESSEL_MPI_CHECK(MPI_Alltoallv(row_len.data(), send_rows.data(), send_rows_displ.data(), MPI_INT64_T,
                                   got.len.data(), recv_rows.data(), got.rows_displ.data(), MPI_INT64_T, comm));
    TESSEL_MPI_CHECK(MPI_Alltoallv(send_col.data(), send_entries.data(), send_entries_displ.data(), MPI_INT32_T,
                                   got.col.data(), recv_entries.data(), got.entries_displ.data(), MPI_INT32_T, comm));
    TESSEL_MPI_CHECK(MPI_Alltoallv(at.values().data(), send_entries.data(), send_entries_displ.data(),
                                   comm::mpi_datatype<V>(), got.val.data(), recv_entries.data(),
                                   got.entries_displ.data(), comm::mpi_datatype<V>(), comm));
    return got;
}

// Step 7: Aᵀ(own pixels, all rays): row j gathers sender 0's entries, then sender 1's, ...
// (senders own ascending ray ranges, so every row comes out sorted). Frees `got`.
template <typename V>
Csr<V, Index> own_pixel_rows(PixelRows<V>& got, size_type own, size_type num_rays, int senders) {
    std::vector<size_type> ptr(static_cast<std::size_t>(own + 1), 0);
    // start[q*own + j]: where sender q's entries of pixel j begin in got.col.
    std::vector<size_type> start(static_cast<std::size_t>(senders) * own);
    for (int q = 0; q < senders; ++q) {
        size_type at_entry = got.entries_displ[q];
        for (size_type j = 0; j < own; ++j) {
            start[q * own + j] = at_entry;
            const size_type len = got.len[got.rows_displ[q] + j];
            at_entry += len;
            ptr[j + 1] += len;
        }
    }
    std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
    std::vector<Index> col(static_cast<std::size_t>(ptr.back()));
    std::vector<V> val(static_cast<std::size_t>(ptr.back()));
#pragma omp parallel for schedule(dynamic, 256)
    for (size_type j = 0; j < own; ++j) {
        size_type e = ptr[j];
        for (int q = 0; q < senders; ++q) {
            const size_type len = got.len[got.rows_displ[q] + j], from = start[q * own + j];
            std::copy(got.col.begin() + from, got.col.begin() + from + len, col.begin() + e);
            std::copy(got.val.begin() + from, got.val.begin() + from + len, val.begin() + e);
            e += len;
        }
    }
    got = PixelRows<V>();
    return Csr<V, Index>(own, num_rays, std::move(ptr), std::move(col), std::move(val), "pixel rows");
}

// The sender-multiplies' options: the local operator configured as on one rank.
dist::DistOptions sender_options(const DistributedOptions& options) {
    dist::DistOptions run;
    run.backend = options.backend;
    run.minibatch = options.minibatch;
    run.pipelined = options.pipelined;
    run.method = options.method;
    run.cuda_aware = options.cuda_aware;
    run.local = operator_config(options.local);
    run.local.backend = options.backend;
    return run;
}

}  // namespace

template <typename V>
DistributedProjector<V>::DistributedProjector(MPI_Comm data_comm, const comm::Topology& topology,
                                              const Geometry& g, const Ordering& o, size_type k,
                                              const DistributedOptions& options, PhaseTimes* times)
    : rank_(comm::rank_of(data_comm)), size_(comm::size_of(data_comm)), k_(k) {
    PhaseTimes local_times;
    PhaseTimes& t = times ? *times : local_times;
    TESSEL_ENSURE_DIMS(topology.ranks() == size_, "distributed projector: topology of " +
                                                      std::to_string(topology.ranks()) + " ranks for " +
                                                      std::to_string(size_) + " data ranks");
    std::vector<size_type> local_fwd_rows, local_bwd_rows;
    Csr<V, Index> local_fwd, local_bwd;
    {
        auto scope = t.scope("build");
        Csr<V, Index> a = trace_balanced_rays<V>(data_comm, g, o, ray_offsets_);
        nnz_ = a.nnz();
        Csr<V, Index> at = transpose_parallel(a);  // all pixels x this rank's rays
        a = Csr<V, Index>();
        pixel_offsets_ = balanced_pixel_offsets(data_comm, at);
        auto got = exchange_pixel_rows(data_comm, at, pixel_offsets_, ray_offsets_[rank_]);
        // 6. Backward local matrix: Aᵀ(:, own rays), rows compressed to the pixels they hit.
        local_bwd = compress_rows(at, local_bwd_rows);
        at = Csr<V, Index>();
        const Csr<V, Index> at_own = own_pixel_rows(got, pixels(), g.num_rays(), size_);
        // 8. Forward local matrix: A(:, own pixels), rows compressed to the rays through them.
        local_fwd = compress_rows(transpose_parallel(at_own), local_fwd_rows);
    }
    auto scope = t.scope("reorder");
    make_operators(data_comm, topology, options, std::move(local_fwd), local_fwd_rows, std::move(local_bwd),
                   local_bwd_rows);
}

// 9. Footprints of every rank, the reduction plans (partition) and the two operators.
template <typename V>
void DistributedProjector<V>::make_operators(MPI_Comm data_comm, const comm::Topology& topology,
                                             const DistributedOptions& options, Csr<V, Index> local_fwd,
                                             const std::vector<size_type>& local_fwd_rows, Csr<V, Index> local_bwd,
                                             const std::vector<size_type>& local_bwd_rows) {
    const auto fwd_footprints = allgather_lists(data_comm, local_fwd_rows);
    const auto bwd_footprints = allgather_lists(data_comm, local_bwd_rows);
    auto fwd_plans = options.hierarchical
                         ? partition::hierarchical_reduction_plans(fwd_footprints, ray_offsets_, topology)
                         : partition::direct_reduction_plans(fwd_footprints, ray_offsets_, topology);
    auto bwd_plans = options.hierarchical
                         ? partition::hierarchical_reduction_plans(bwd_footprints, pixel_offsets_, topology)
                         : partition::direct_reduction_plans(bwd_footprints, pixel_offsets_, topology);
    fwd_rows_ = local_fwd.rows();
    bwd_rows_ = local_bwd.rows();
    const dist::DistOptions run = sender_options(options);
    const bool on_device = options.backend == Backend::cuda;
    on_device_ = on_device;
    info_ = {{"kernel", std::string(to_string(options.local.kernel)) + " (sender-multiplies" +
                            (on_device ? ", device-resident)" : ")")},
             {"staging", on_device ? std::string(comm::to_string(comm::choose_device_staging(options.cuda_aware)))
                                   : std::string("host memory")},
             {"reduction", options.hierarchical ? "hierarchical" : "direct"},
             {"steps", fwd_plans[rank_].steps.size()},
             {"pipelined", options.pipelined},
             {"data_ranks", size_},
             {"topology", topology.describe()},
             {"nnz", nnz_},
             {"pixels", pixels()},
             {"rays", rays()},
             {"forward_footprint", fwd_rows_},
             {"backward_footprint", bwd_rows_}};
    // The rows this rank's exchange steps send and receive per product (x K slices: what MPI
    // carries, and with host staging what crosses between host and device).
    const auto exchanged = [](const comm::ExchangePlan& plan, bool sent) {
        size_type rows = 0;
        for (const auto& step : plan.steps) rows += sent ? step.rows_sent() : step.rows_received();
        return rows;
    };
    info_["forward_rows_sent"] = exchanged(fwd_plans[rank_], true);
    info_["forward_rows_received"] = exchanged(fwd_plans[rank_], false);
    info_["backward_rows_sent"] = exchanged(bwd_plans[rank_], true);
    info_["backward_rows_received"] = exchanged(bwd_plans[rank_], false);
    fwd_ = dist::make_sender_multiplies_spmm<V, Index>(data_comm, topology, ray_offsets_, pixel_offsets_, 0, k_,
                                                       std::move(local_fwd), std::move(fwd_plans[rank_]), run);
    bwd_ = dist::make_sender_multiplies_spmm<V, Index>(data_comm, topology, pixel_offsets_, ray_offsets_, 0, k_,
                                                       std::move(local_bwd), std::move(bwd_plans[rank_]), run);
    info_["minibatch"] = dist::round_minibatch(run.minibatch, k_);
}

template <typename V>
void DistributedProjector<V>::run(dist::DistSpmm<V, Index>& op, DenseMatrix<V>& in,
                                  DenseMatrix<V>& out, bool backward) {
    TESSEL_ENSURE_DIMS(in.cols() == k_, "distributed projector: " + std::to_string(in.cols()) +
                                            " columns, built for " + std::to_string(k_));
    const auto before = op.times();
    Timer timer;
    in_.ranges = op.b_ranges();
    in_.blocks.resize(1);
    in_.blocks[0] = std::move(in);
    out_.ranges = op.c_ranges();
    out_.blocks.resize(1);
    out_.blocks[0] = std::move(out);
    try {
        op.multiply(in_, out_);
    } catch (...) {
        in = std::move(in_.blocks[0]);
        throw;
    }
    in = std::move(in_.blocks[0]);
    out = std::move(out_.blocks[0]);
    (backward ? this->stats_.backward_seconds : this->stats_.forward_seconds) += timer.seconds();
    count_product(op, before, in.rows(), backward);
}

// Calls, flops, bytes and the reductions' host time of one product.
template <typename V>
void DistributedProjector<V>::count_product(const dist::DistSpmm<V, Index>& op, const PhaseTimes& before,
                                            size_type in_rows, bool backward) {
    auto& s = this->stats_;
    ++(backward ? s.backward_calls : s.forward_calls);
    s.flops += 2.0 * double(nnz_) * double(k_);
    const double a_bytes = double(nnz_) * double(sizeof(Index) + sizeof(V));
    s.bytes += a_bytes + double(k_) * double(in_rows + (backward ? bwd_rows_ : fwd_rows_)) * sizeof(V);
    s.communicate_seconds += (op.times().get("local") - before.get("local")) +
                             (op.times().get("global") - before.get("global"));
}

template <typename V>
void DistributedProjector<V>::forward(DenseMatrix<V>& x, DenseMatrix<V>& y) {
    run(*fwd_, x, y, false);
}

template <typename V>
void DistributedProjector<V>::backward(DenseMatrix<V>& y, DenseMatrix<V>& x) {
    run(*bwd_, y, x, true);
}

template <typename V>
double DistributedProjector<V>::matrix_bytes() const {
    return 2.0 * double(nnz_) * double(sizeof(Index) + sizeof(V)) +
           double(fwd_rows_ + bwd_rows_ + 2) * sizeof(size_type);
}

template <typename V>
nlohmann::json DistributedProjector<V>::describe() const {
    auto j = info_;
    j["matrix_bytes"] = matrix_bytes();
    return j;
}

template class DistributedProjector<float>;
template class DistributedProjector<double>;

}  // namespace tessel::xct
