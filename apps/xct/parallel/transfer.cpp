// Gathers and scatters between rank 0's natural layout and the grid's ordered blocks.
#include "apps/xct/parallel/transfer.hpp"

#include <cstdint>

#include "core/comm/mpi_check.hpp"

namespace tessel::xct {

namespace {

constexpr int tag_domain = 4101, tag_history = 4102;

}  // namespace

template <typename V>
std::vector<V> gather_domain(const ParallelLayout& layout, const DenseMatrix<V>& local,
                             const std::vector<size_type>& offsets, const partition::Permutation& order) {
    const size_type total = offsets.back(), k = local.cols();
    const MPI_Datatype type = comm::mpi_datatype<V>();
    if (layout.rank != 0) {
        TESSEL_MPI_CHECK(MPI_Send(local.data(), comm::mpi_count(local.size()), type, 0, tag_domain, layout.world));
        return {};
    }
    std::vector<V> natural(static_cast<std::size_t>(layout.p_batch() * k * total), V{0});
    std::vector<V> buffer;
    for (int r = 0; r < layout.size; ++r) {
        const int b = layout.grid.batch_index[r], d = layout.grid.data_index[r];
        const size_type first = offsets[d], rows = offsets[d + 1] - first;
        const V* block = local.data();
        if (r != 0) {
            buffer.resize(static_cast<std::size_t>(rows * k));
            TESSEL_MPI_CHECK(MPI_Recv(buffer.data(), comm::mpi_count(rows * k), type, r, tag_domain, layout.world,
                                      MPI_STATUS_IGNORE));
            block = buffer.data();
        }
#pragma omp parallel for schedule(static)
        for (size_type i = 0; i < rows; ++i) {
            const size_type natural_index = order[first + i];
            for (size_type j = 0; j < k; ++j) natural[(b * k + j) * total + natural_index] = block[i * k + j];
        }
    }
    return natural;
}

template <typename V>
void scatter_domain(const ParallelLayout& layout, const std::vector<V>& natural, DenseMatrix<V>& local,
                    const std::vector<size_type>& offsets, const partition::Permutation& order, size_type k) {
    const size_type total = offsets.back();
    const MPI_Datatype type = comm::mpi_datatype<V>();
    const int d_self = layout.data_index();
    const size_type rows_self = offsets[d_self + 1] - offsets[d_self];
    if (local.rows() != rows_self || local.cols() != k) local = DenseMatrix<V>(rows_self, k);
    if (layout.rank != 0) {
        TESSEL_MPI_CHECK(MPI_Recv(local.data(), comm::mpi_count(local.size()), type, 0, tag_domain, layout.world,
                                  MPI_STATUS_IGNORE));
        return;
    }
    TESSEL_ENSURE_DIMS(static_cast<size_type>(natural.size()) == layout.p_batch() * k * total,
                       "scatter: natural array has " + std::to_string(natural.size()) + " values, expected " +
                           std::to_string(layout.p_batch() * k * total));
    std::vector<V> buffer;
    for (int r = layout.size - 1; r >= 0; --r) {  // rank 0's own block last
        const int b = layout.grid.batch_index[r], d = layout.grid.data_index[r];
        const size_type first = offsets[d], rows = offsets[d + 1] - first;
        buffer.resize(static_cast<std::size_t>(rows * k));
        V* block = r == 0 ? local.data() : buffer.data();
#pragma omp parallel for schedule(static)
        for (size_type i = 0; i < rows; ++i) {
            const size_type natural_index = order[first + i];
            for (size_type j = 0; j < k; ++j) block[i * k + j] = natural[(b * k + j) * total + natural_index];
        }
        if (r != 0)
            TESSEL_MPI_CHECK(MPI_Send(buffer.data(), comm::mpi_count(rows * k), type, r, tag_domain, layout.world));
    }
}

std::vector<std::vector<double>> gather_histories(const ParallelLayout& layout,
                                                  const std::vector<std::vector<double>>& mine) {
    // Every column of a group has the same length (stopped columns repeat their last value).
    const long long k = static_cast<long long>(mine.size());
    long long length = mine.empty() ? 0 : static_cast<long long>(mine[0].size());
    std::vector<double> flat;
    flat.reserve(static_cast<std::size_t>(k * length));
    for (const auto& h : mine) flat.insert(flat.end(), h.begin(), h.end());
    if (layout.rank != 0) {
        if (layout.data_index() == 0) {
            long long header[2] = {k, length};
            TESSEL_MPI_CHECK(MPI_Send(header, 2, MPI_LONG_LONG, 0, tag_history, layout.world));
            TESSEL_MPI_CHECK(
                MPI_Send(flat.data(), comm::mpi_count(flat.size()), MPI_DOUBLE, 0, tag_history, layout.world));
        }
        return {};
    }
    std::vector<std::vector<double>> all(static_cast<std::size_t>(layout.p_batch() * k));
    for (int r = 0; r < layout.size; ++r) {
        if (layout.grid.data_index[r] != 0) continue;
        const int b = layout.grid.batch_index[r];
        long long header[2] = {k, length};
        std::vector<double> got = flat;
        if (r != 0) {
            TESSEL_MPI_CHECK(MPI_Recv(header, 2, MPI_LONG_LONG, r, tag_history, layout.world, MPI_STATUS_IGNORE));
            got.resize(static_cast<std::size_t>(header[0] * header[1]));
            TESSEL_MPI_CHECK(MPI_Recv(got.data(), comm::mpi_count(got.size()), MPI_DOUBLE, r, tag_history,
                                      layout.world, MPI_STATUS_IGNORE));
        }
        for (long long j = 0; j < header[0]; ++j)
            all[b * k + j].assign(got.begin() + j * header[1], got.begin() + (j + 1) * header[1]);
    }
    return all;
}

template <typename T>
std::vector<T> scatter_columns(const ParallelLayout& layout, const std::vector<T>& all, size_type k) {
    std::vector<T> full = all;
    const long long count = layout.p_batch() * k;
    full.resize(static_cast<std::size_t>(count));
    MPI_Datatype type;
    if constexpr (sizeof(T) == 8)
        type = MPI_DOUBLE;
    else
        type = MPI_UINT8_T;
    static_assert(sizeof(T) == 8 || sizeof(T) == 1, "scatter_columns: doubles or bytes");
    TESSEL_MPI_CHECK(MPI_Bcast(full.data(), comm::mpi_count(count), type, 0, layout.world));
    const int b = layout.batch_index();
    return std::vector<T>(full.begin() + b * k, full.begin() + (b + 1) * k);
}

template std::vector<float> gather_domain(const ParallelLayout&, const DenseMatrix<float>&,
                                          const std::vector<size_type>&, const partition::Permutation&);
template std::vector<double> gather_domain(const ParallelLayout&, const DenseMatrix<double>&,
                                           const std::vector<size_type>&, const partition::Permutation&);
template void scatter_domain(const ParallelLayout&, const std::vector<float>&, DenseMatrix<float>&,
                             const std::vector<size_type>&, const partition::Permutation&, size_type);
template void scatter_domain(const ParallelLayout&, const std::vector<double>&, DenseMatrix<double>&,
                             const std::vector<size_type>&, const partition::Permutation&, size_type);
template std::vector<double> scatter_columns(const ParallelLayout&, const std::vector<double>&, size_type);
template std::vector<std::uint8_t> scatter_columns(const ParallelLayout&, const std::vector<std::uint8_t>&,
                                                   size_type);

}  // namespace tessel::xct
