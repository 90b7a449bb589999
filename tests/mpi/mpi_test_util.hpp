// Helpers of the MPI tests: world rank/size, a global agreement on a flag, and the check of a
// distributed SpMM against reference::spmm on the gathered result.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/comm/topology.hpp"
#include "core/dist/dist_spmm.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::test {

inline int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

inline int world_size() {
    int p = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

/// True on every rank when `ok` holds on every rank.
inline bool all_ranks(bool ok) {
    int v = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

/// The topologies a test may use with the current number of ranks: flat, then every spec of
/// `specs` that fits.
inline std::vector<std::pair<std::string, comm::Topology>> topologies(
    const std::vector<std::string>& specs) {
    std::vector<std::pair<std::string, comm::Topology>> out;
    out.emplace_back("flat", comm::Topology::flat(world_size()));
    for (const auto& spec : specs) {
        try {
            out.emplace_back(spec, comm::Topology::from_spec(spec, world_size()));
        } catch (const InvalidInput&) {
        }
    }
    return out;
}

/// Runs op.multiply on B = random_dense(n, k, seed) (identical on all ranks), gathers C on every
/// rank (each block added into a zero matrix, then MPI_Allreduce) and returns the largest error
/// |C - C_ref| / (1 + |A| row sum · max|B|) over all ranks and entries.
template <typename V, typename I>
double distributed_error(dist::DistSpmm<V, I>& op, const Csr<V, I>& a, size_type k,
                         std::uint64_t seed = 11) {
    const auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, seed);
    auto b_local = dist::DenseBlocks<V>::from_global(b.view(), op.b_ranges());
    dist::DenseBlocks<V> c_local;
    op.multiply(b_local, c_local);
    DenseMatrix<V> c(a.rows(), k);
    c_local.add_to_global(c.view());
    MPI_Allreduce(MPI_IN_PLACE, c.data(), static_cast<int>(c.size()),
                  std::is_same_v<V, float> ? MPI_FLOAT : MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    DenseMatrix<V> expected(a.rows(), k);
    reference::spmm<V, I>(a, b.view(), expected.view());
    double worst = 0;
    for (size_type i = 0; i < a.rows(); ++i) {
        double scale = 1;
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) scale += std::abs(double(a.values()[e]));
        for (size_type j = 0; j < k; ++j)
            worst = std::max(worst, std::abs(double(c(i, j)) - double(expected(i, j))) / scale);
    }
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

}  // namespace tessel::test
