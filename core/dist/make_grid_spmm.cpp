// The grid variant for an algorithm name.
#include "core/dist/make_grid_spmm.hpp"

#include "core/dist/spmm_15d_a.hpp"
#include "core/dist/spmm_2d_a.hpp"
#include "core/dist/spmm_2d_a_async.hpp"
#include "core/dist/spmm_2d_c.hpp"
#include "core/dist/spmm_2d_c_async.hpp"
#include "core/instantiate.hpp"

namespace tessel::dist {

template <typename V, typename I>
std::unique_ptr<DistSpmm<V, I>> make_grid_spmm(DistAlgorithm algorithm, MPI_Comm comm,
                                               const comm::Topology& topology, DistLayout layout,
                                               std::vector<Csr<V, I>> local_a,
                                               const DistOptions& options) {
    switch (algorithm) {
    case DistAlgorithm::a15d:
        return std::make_unique<Spmm15dA<V, I>>(comm, topology, std::move(layout), std::move(local_a), options);
    case DistAlgorithm::a2d:
        return std::make_unique<Spmm2dA<V, I>>(comm, topology, std::move(layout), std::move(local_a), options);
    case DistAlgorithm::c2d:
        return std::make_unique<Spmm2dC<V, I>>(comm, topology, std::move(layout), std::move(local_a), options);
    case DistAlgorithm::a2d_async:
        return std::make_unique<Spmm2dAAsync<V, I>>(comm, topology, std::move(layout), std::move(local_a), options);
    case DistAlgorithm::c2d_async:
        return std::make_unique<Spmm2dCAsync<V, I>>(comm, topology, std::move(layout), std::move(local_a), options);
    default:
        TESSEL_THROW(DimensionMismatch,
                     "make_grid_spmm: " + std::string(to_string(algorithm)) + " is not a grid algorithm");
    }
}

#define TESSEL_INSTANTIATE(V, I)                                                              \
    template std::unique_ptr<DistSpmm<V, I>> make_grid_spmm(DistAlgorithm, MPI_Comm,           \
                                                            const comm::Topology&, DistLayout, \
                                                            std::vector<Csr<V, I>>, const DistOptions&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
