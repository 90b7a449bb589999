// The sender-multiplies SpMM for a backend: device-resident on cuda where the build has it.
#include "core/cuda/entry_points.hpp"
#include "core/dist/sender_multiplies_spmm.hpp"

#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm.hpp"
#if defined(TESSEL_HAVE_CUDA)
#include "core/dist/device_sender_multiplies_spmm.hpp"
#endif

namespace tessel::dist {

template <typename V, typename I>
std::unique_ptr<DistSpmm<V, I>> make_sender_multiplies_spmm(
    MPI_Comm data_comm, const comm::Topology& topology, std::vector<size_type> row_offsets,
    std::vector<size_type> col_offsets, size_type k_begin, size_type k_end, Csr<V, I> local_a,
    comm::ExchangePlan plan, const DistOptions& options) {
    const Backend backend = options.backend == Backend::automatic
                                ? resolve_backend(Backend::automatic)
                                : options.backend;
    if (backend == Backend::cuda) {
#if defined(TESSEL_HAVE_CUDA)
        return std::make_unique<DeviceSenderMultipliesSpmm<V, I>>(
            data_comm, topology, std::move(row_offsets), std::move(col_offsets), k_begin, k_end,
            std::move(local_a), std::move(plan), options);
#else
        cuda::not_compiled("sender-multiplies SpMM on cuda");
#endif
    }
    return std::make_unique<SenderMultipliesSpmm<V, I>>(
        data_comm, topology, std::move(row_offsets), std::move(col_offsets), k_begin, k_end,
        std::move(local_a), std::move(plan), options);
}

#define TESSEL_INSTANTIATE(V, I)                                                               \
    template std::unique_ptr<DistSpmm<V, I>> make_sender_multiplies_spmm(                      \
        MPI_Comm, const comm::Topology&, std::vector<size_type>, std::vector<size_type>,       \
        size_type, size_type, Csr<V, I>, comm::ExchangePlan, const DistOptions&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
