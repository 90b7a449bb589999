// Norms of C's tiles and gathering C on rank 0.
#include "apps/ccsd_abcd/results/result_gather.hpp"

#include <cmath>
#include <type_traits>

#include "core/comm/mpi_check.hpp"

namespace tessel::abcd {

template <typename T>
std::vector<double> c_tile_norms(const TileStore<T>& c_owned, MPI_Comm comm) {
    std::vector<double> sq(c_owned.size(), 0.0);
    for (std::size_t e = 0; e < c_owned.size(); ++e) {
        double s = 0;
        for (auto v : c_owned[e]) s += double(v) * double(v);
        sq[e] = s;
    }
    if (comm != MPI_COMM_NULL && !sq.empty())
        TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sq.data(), static_cast<int>(sq.size()), MPI_DOUBLE, MPI_SUM, comm));
    for (auto& v : sq) v = std::sqrt(v);
    return sq;
}

template <typename T>
TileStore<T> gather_c_tiles(const Problem& p, const Plan& plan, const TileStore<T>& c_owned, int rank, MPI_Comm comm) {
    const TileShape& cs = plan.product.c_shape;
    const MPI_Datatype type = std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
    TileStore<T> all;
    if (rank == 0) all.resize(static_cast<std::size_t>(cs.nnz()));
    std::vector<MPI_Request> reqs;
    for (size_type e = 0; e < cs.nnz(); ++e) {
        const size_type i = cs.row_of(e), c = cs.col_idx()[e];
        const int owner = plan.grid.c_owner(i, c);
        const size_type count = p.m_tiling.size(i) * p.n_tiling.size(c);
        if (rank == 0) {
            if (owner == 0 || comm == MPI_COMM_NULL) {
                all[e] = c_owned[e];
                if (all[e].empty()) all[e].assign(static_cast<std::size_t>(count), T(0));
            } else {
                all[e].resize(static_cast<std::size_t>(count));  // filled by the receive
                reqs.emplace_back();
                TESSEL_MPI_CHECK(MPI_Irecv(all[e].data(), static_cast<int>(count), type, owner, static_cast<int>(e), comm,
                                   &reqs.back()));
            }
        } else if (owner == rank) {
            reqs.emplace_back();
            TESSEL_MPI_CHECK(MPI_Isend(c_owned[e].data(), static_cast<int>(count), type, 0, static_cast<int>(e), comm,
                               &reqs.back()));
        }
    }
    if (!reqs.empty()) TESSEL_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
    return all;
}

template std::vector<double> c_tile_norms<double>(const TileStore<double>&, MPI_Comm);
template std::vector<double> c_tile_norms<float>(const TileStore<float>&, MPI_Comm);
template TileStore<double> gather_c_tiles<double>(const Problem&, const Plan&, const TileStore<double>&, int, MPI_Comm);
template TileStore<float> gather_c_tiles<float>(const Problem&, const Plan&, const TileStore<float>&, int, MPI_Comm);

}  // namespace tessel::abcd
