// The executor's front door: the backend branch and this rank's own A tiles.
#include "apps/ccsd_abcd/executor/executor.hpp"

#include <omp.h>

#include "core/backend.hpp"
#include "core/error.hpp"

namespace tessel::abcd {

Backend choose_backend(Backend requested, std::string* why) {
    // `auto` is resolved by core, as in every app (core/backend.hpp); a cuda asked for is
    // checked by the caller, which names this app's own build option.
    if (requested == Backend::cuda) {
        if (why) *why = "cuda (asked for)";
        return Backend::cuda;
    }
    if (requested != Backend::automatic) {
        if (why) *why = "cpu (asked for)";
        return Backend::cpu;
    }
    const Backend b = resolve_backend(Backend::automatic);
    if (why) *why = std::string(to_string(b)) + " (auto: device " + cuda::device_description() + ")";
    return b;
}

template <typename T>
TileStore<T> make_local_a(const Problem& p, const ProcessGrid& grid, int rank) {
    const TileShape& as = p.a_shape;
    TileStore<T> store(static_cast<std::size_t>(as.nnz()));
    std::vector<size_type> mine;
    for (size_type i = 0; i < as.rows(); ++i)
        for (size_type e = as.row_ptr()[i]; e < as.row_ptr()[i + 1]; ++e)
            if (grid.a_owner(i, as.col_idx()[e]) == rank) mine.push_back(e);
    std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t t = 0; t < mine.size(); ++t) {
        try {
            const size_type e = mine[t];
            const size_type i = as.row_of(e), k = as.col_idx()[e];
            store[e].resize(static_cast<std::size_t>(p.m_tiling.size(i) * p.k_tiling.size(k)));
            p.values->fill(Operand::a, i, k, store[e].data());
        } catch (...) {
#pragma omp critical
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
    return store;
}

template <typename T>
ExecutionResult execute(const Problem& p, const Plan& plan, TileStore<T>& a, TileStore<T>& c_owned,
                        const ExecutorOptions& options) {
    std::string why;
    const Backend b = choose_backend(options.backend, &why);
    c_owned.assign(static_cast<std::size_t>(plan.product.c_shape.nnz()), TileBuffer<T>{});
    ExecutionResult r = b == Backend::cuda ? execute_cuda(p, plan, a, c_owned, options)
                                           : execute_cpu(p, plan, a, c_owned, options);
    r.backend = why + "; " + r.backend;
    return r;
}

template TileStore<double> make_local_a<double>(const Problem&, const ProcessGrid&, int);
template TileStore<float> make_local_a<float>(const Problem&, const ProcessGrid&, int);
template ExecutionResult execute<double>(const Problem&, const Plan&, TileStore<double>&, TileStore<double>&,
                                         const ExecutorOptions&);
template ExecutionResult execute<float>(const Problem&, const Plan&, TileStore<float>&, TileStore<float>&,
                                        const ExecutorOptions&);

}  // namespace tessel::abcd
